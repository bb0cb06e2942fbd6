package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Explain decides in exactly as Decide does and renders the decision rule
// by rule for humans: for every requested grant, which rules were
// considered, which matched or were skipped and why, which were not reached,
// and what was issued or why it was denied.
func (p *Policy) Explain(ctx context.Context, in Input) string {
	tr := &tracer{}
	d := p.decide(ctx, in, tr, nil)
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s (revision %s)\n", p.name, p.revision)
	fmt.Fprintf(&b, "request: %s asks agent %q for %s", describePrincipal(&in.Principal), in.Agent, list(in.Grants))
	if len(in.Operations) > 0 {
		fmt.Fprintf(&b, " operations %s", list(in.Operations))
	}
	fmt.Fprintf(&b, " on %s", queryConstraint(in.Resource))
	if in.Purpose != "" {
		fmt.Fprintf(&b, " purpose %q", in.Purpose)
	}
	if !in.Expires.IsZero() {
		fmt.Fprintf(&b, " until %s", stamp(in.Expires))
	}
	fmt.Fprintf(&b, " at %s\n", stamp(in.Now))
	for _, g := range dedupe(in.Grants) {
		p.explainGrant(&b, in.Agent, g, tr, &d)
	}
	fmt.Fprintf(&b, "\ndecision: %s\n", verdict(d.Allow))
	if d.NeedsApproval() {
		fmt.Fprintf(&b, "  - would need approval by %s before anything is issued\n", approversOf(d))
	}
	for _, r := range d.Reasons {
		if r.Grant == "" {
			fmt.Fprintf(&b, "  - %s\n", r.Text)
		}
	}
	return b.String()
}

func (p *Policy) explainGrant(b *strings.Builder, agent, g string, tr *tracer, d *Decision) {
	fmt.Fprintf(b, "\ngrant %q:\n", g)
	var heads []*ruleHead
	for _, r := range p.deny[agent][g] {
		heads = append(heads, &r.ruleHead)
	}
	for _, r := range p.allow[agent][g] {
		heads = append(heads, &r.ruleHead)
	}
	if len(heads) == 0 {
		fmt.Fprintf(b, "  no rule names agent %q and grant %q\n", agent, g)
	}
	explainRules(b, g, heads, tr)
	for _, gd := range d.Grants {
		if gd.Grant == g && gd.Approval != nil {
			fmt.Fprintf(b, "  => would need approval by %s (rule %q, waits at most %s); once approved:\n",
				gd.Approval.Approvers, gd.Approval.Rule, gd.Approval.Wait)
		}
		if gd.Grant == g {
			fmt.Fprintf(b, "  => ISSUED by rule %q: operations %s, %s, expires %s, max delegation depth %d, attenuable %t\n",
				gd.Rule, list(gd.Operations), gd.Resource, stamp(gd.Expires), gd.MaxDepth, gd.Attenuable)
			for _, ex := range gd.Excluded {
				fmt.Fprintf(b, "     excluding %s\n", ex)
			}
		}
	}
	for _, r := range d.Reasons {
		if r.Grant == g {
			fmt.Fprintf(b, "  - %s: %s\n", r.Part, r.Text)
		}
	}
}

// explainRules prints one line per rule with its traced outcome.
func explainRules(b *strings.Builder, subject string, heads []*ruleHead, tr *tracer) {
	for _, h := range heads {
		status, detail := "not reached", "an earlier rule decided"
		for _, s := range tr.steps {
			if s.subject == subject && s.ref.ID == h.id && s.ref.Effect == h.effect {
				status, detail = s.outcome, s.detail
			}
		}
		fmt.Fprintf(b, "  %-5s %-28s %s\n", h.effect, h.id, h.pos)
		if h.desc != "" {
			fmt.Fprintf(b, "        # %s\n", h.desc)
		}
		fmt.Fprintf(b, "        principals: %s\n        %s: %s\n", h.who.String(), strings.ToUpper(status), detail)
	}
}

// ExplainA2E is Explain for an A2E handshake.
func (p *Policy) ExplainA2E(ctx context.Context, in A2EInput) string {
	tr := &tracer{}
	d := p.decideA2E(ctx, in, tr, nil)
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s (revision %s)\n", p.name, p.revision)
	fmt.Fprintf(&b, "A2E handshake: %s asks host %q for %s at %s\n",
		describePrincipal(&in.Principal), in.Host, list(in.Capabilities), stamp(in.Now))
	for _, c := range dedupe(in.Capabilities) {
		fmt.Fprintf(&b, "\ncapability %q:\n", c)
		var heads []*ruleHead
		for _, r := range slices.Concat(p.a2eDeny[in.Host], p.a2eAllow[in.Host]) {
			if r.names(c) {
				heads = append(heads, &r.ruleHead)
			}
		}
		explainRules(&b, c, heads, tr)
		if why, denied := d.Denied[c]; denied {
			fmt.Fprintf(&b, "  => DENIED: %s\n", why)
		} else {
			fmt.Fprintf(&b, "  => ALLOWED\n")
		}
	}
	return b.String()
}

// ExplainAmbient is Explain for a call without a capability.
func (p *Policy) ExplainAmbient(ctx context.Context, in AmbientInput) string {
	tr := &tracer{}
	d := p.decideAmbient(ctx, in, tr, nil)
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s (revision %s)\n", p.name, p.revision)
	fmt.Fprintf(&b, "ambient call: %s calls %q skill %q on agent %q at %s\n",
		describePrincipal(&in.Principal), in.Method, in.Skill, in.Agent, stamp(in.Now))
	var heads []*ruleHead
	for _, r := range slices.Concat(p.ambDeny[in.Agent], p.ambAllow[in.Agent]) {
		if r.matchesCall(in.Skill, in.Method) {
			heads = append(heads, &r.ruleHead)
		}
	}
	explainRules(&b, in.Method+" "+in.Skill, heads, tr)
	fmt.Fprintf(&b, "\ndecision: %s\n", verdict(d.Allow))
	for _, r := range d.Reasons {
		fmt.Fprintf(&b, "  - %s\n", r.Text)
	}
	return b.String()
}

func describePrincipal(p *Principal) string {
	s := fmt.Sprintf("principal %q", p.ID)
	if len(p.Groups) > 0 {
		s += " groups " + list(p.Groups)
	}
	if p.Issuer != "" {
		s += " issuer " + p.Issuer
	}
	return s
}

func verdict(allow bool) string {
	if allow {
		return "ALLOW"
	}
	return "DENY"
}
