package policy

import (
	"strings"
	"time"
)

// Rule kinds of a RuleSummary.
const (
	KindGrant   = "grant"   // the rules section: A2A and MCP grants
	KindA2E     = "a2e"     // A2E capability rules
	KindAmbient = "ambient" // calls without a capability
)

// RuleSummary is one rule of a loaded policy as people read it: what it
// applies to, to whom, and the limits it sets. It is built from the
// compiled rule, so it shows exactly the policy in force.
type RuleSummary struct {
	RuleRef
	// Kind is KindGrant, KindA2E or KindAmbient.
	Kind string `json:"kind"`
	// Description is the rule's own description, if it has one.
	Description string `json:"description,omitempty"`
	// Principals says whom the rule matches ("any principal", "groups [hr]").
	Principals string `json:"principals"`
	// Targets lists what the rule applies to: "agent:grant" pairs, A2E
	// "host: capability" pairs, or an ambient rule's agents, skills and
	// methods.
	Targets []string `json:"targets"`
	// Operations narrows a grant rule's operations; empty means the
	// grant's own.
	Operations []string `json:"operations,omitempty"`
	// Resource bounds a grant rule's resources ("any resource" when none).
	Resource string `json:"resource,omitempty"`
	// MaxTTL and MaxDepth are an allow grant rule's limits; TTL is MaxTTL
	// as written in a policy ("1h", "15m"), TTLFrom where it comes from
	// ("rule", "defaults.max_ttl", ...).
	MaxTTL   time.Duration `json:"-"`
	TTL      string        `json:"maxTTL,omitempty"`
	TTLFrom  string        `json:"ttlFrom,omitempty"`
	MaxDepth int           `json:"maxDepth"`
	// RequirePurpose says a caller must state a purpose.
	RequirePurpose bool `json:"requirePurpose,omitempty"`
	// Approval names the approvers when the rule issues only after a
	// human approves; empty otherwise.
	Approval string `json:"approval,omitempty"`
	// Conditions are the rule's CEL conditions, as written.
	Conditions []string `json:"conditions,omitempty"`
}

// Summaries describes every rule of the policy in file order, as Rules
// lists them: the rules section, then a2e, then ambient.
func (p *Policy) Summaries() []RuleSummary {
	out := make([]RuleSummary, 0, len(p.rules)+len(p.a2e)+len(p.ambient))
	for _, r := range p.rules {
		s := r.summary(KindGrant)
		for _, t := range r.targets {
			s.Targets = append(s.Targets, t.grant+" on "+t.agent)
		}
		s.Operations = r.ops
		if r.res != nil {
			s.Resource = r.res.String()
		}
		if r.effect == EffectAllow {
			s.MaxTTL, s.TTL, s.TTLFrom, s.MaxDepth = r.maxTTL, FormatDuration(r.maxTTL), r.ttlFrom, r.maxDepth
		}
		s.RequirePurpose = r.requirePurpose
		if r.approval != nil {
			s.Approval = r.approval.approvers.String()
		}
		out = append(out, s)
	}
	for _, r := range p.a2e {
		s := r.summary(KindA2E)
		for _, h := range r.hosts {
			s.Targets = append(s.Targets, h+": "+list(r.caps))
		}
		out = append(out, s)
	}
	for _, r := range p.ambient {
		s := r.summary(KindAmbient)
		s.Targets = []string{"agents " + list(r.agents)}
		if len(r.skills) > 0 {
			s.Targets = append(s.Targets, "skills "+list(r.skills))
		}
		if len(r.methods) > 0 {
			s.Targets = append(s.Targets, "methods "+list(r.methods))
		}
		out = append(out, s)
	}
	return out
}

// summary fills what every rule kind shares.
func (h *ruleHead) summary(kind string) RuleSummary {
	s := RuleSummary{RuleRef: h.ref(), Kind: kind, Description: h.desc, Principals: h.who.String()}
	for _, c := range h.conds {
		s.Conditions = append(s.Conditions, c.src)
	}
	return s
}

// FormatDuration writes d as a policy file would, without its zero
// units: 15m, 1h30m, 24h, 90s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
