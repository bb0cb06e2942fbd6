package policy

import (
	"slices"
	"time"
)

// Built-in limits for allow rules that set none and whose file has no
// defaults section. They err on the side of short-lived, undelegable
// capabilities.
const (
	// DefaultMaxTTL is the max_ttl of an allow rule when neither the rule nor
	// the file's defaults set one.
	DefaultMaxTTL = 15 * time.Minute
	// DefaultMaxDelegationDepth is the max_delegation_depth of an allow rule
	// when neither the rule nor the file's defaults set one: no delegation.
	DefaultMaxDelegationDepth = 0
	// MaxPolicyBytes bounds the size of a policy document.
	MaxPolicyBytes = 4 << 20
)

// Policy is a loaded, validated and compiled policy. It is immutable and
// safe for concurrent use; every request should be decided against the one
// *Policy it took at its start (see Watcher.Current).
type Policy struct {
	name     string
	revision string
	cat      Catalog
	rules    []*rule
	a2e      []*a2eRule
	ambient  []*ambientRule

	// Indexes in file order: agent → grant → rules, host → rules,
	// agent → ambient rules. Decide never scans rules that cannot apply.
	allow    map[string]map[string][]*rule
	deny     map[string]map[string][]*rule
	a2eAllow map[string][]*a2eRule
	a2eDeny  map[string][]*a2eRule
	ambAllow map[string][]*ambientRule
	ambDeny  map[string][]*ambientRule
}

// Revision returns a short sha256 of the policy document: the same bytes
// always give the same revision.
func (p *Policy) Revision() string { return p.revision }

// Name returns the name the policy was loaded under (usually its path).
func (p *Policy) Name() string { return p.name }

// ruleHead holds what every rule kind shares.
type ruleHead struct {
	id     string
	desc   string
	effect Effect
	pos    string
	path   string
	who    matcher
	conds  []condition
}

func (h *ruleHead) ref() RuleRef { return RuleRef{ID: h.id, Effect: h.effect, Pos: h.pos} }

// target is one (agent, grant) pair a rule applies to.
type target struct{ agent, grant string }

// rule is a compiled A2A grant rule.
type rule struct {
	ruleHead
	targets        []target
	ops            []string // nil: the grant's operations
	res            *ResourceConstraint
	maxTTL         time.Duration
	ttlFrom        string
	maxDepth       int
	requirePurpose bool
	approval       *approvalSpec
}

// approvalSpec is a compiled approval section.
type approvalSpec struct {
	approvers Approvers
	wait      time.Duration
	when      []condition
}

// a2eRule is a compiled A2E capability rule.
type a2eRule struct {
	ruleHead
	hosts []string
	caps  []string // may hold "*"
}

// allows reports whether the rule names capability c.
func (r *a2eRule) names(c string) bool {
	return slices.Contains(r.caps, "*") || slices.Contains(r.caps, c)
}

// ambientRule is a compiled ambient rule.
type ambientRule struct {
	ruleHead
	agents  []string
	skills  []string // empty: any; "*": any
	methods []string // empty: any; "*": any
}

// matchesCall reports whether the rule covers skill and method.
func (r *ambientRule) matchesCall(skill, method string) bool {
	ok := func(list []string, v string) bool {
		return len(list) == 0 || slices.Contains(list, "*") || slices.Contains(list, v)
	}
	return ok(r.skills, skill) && ok(r.methods, method)
}

// Rules lists every rule of the policy in file order: the rules section,
// then a2e, then ambient (for the admin API and `capgate policy check`).
func (p *Policy) Rules() []RuleRef {
	out := make([]RuleRef, 0, len(p.rules)+len(p.a2e)+len(p.ambient))
	for _, r := range p.rules {
		out = append(out, r.ref())
	}
	for _, r := range p.a2e {
		out = append(out, r.ref())
	}
	for _, r := range p.ambient {
		out = append(out, r.ref())
	}
	return out
}
