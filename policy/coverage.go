package policy

import "context"

// condOutcome is what one evaluation of a condition gave.
type condOutcome int

const (
	condTrue condOutcome = iota
	condFalse
	condError
)

// Coverage counts, for every CEL condition of a policy, how often it was
// true, false or could not be evaluated while deciding. It tells a tool
// that probes a policy with many requests (policy/impact) which conditions
// its requests never decided both ways. The zero value is not usable: call
// NewCoverage. A Coverage is not safe for concurrent use.
type Coverage struct {
	seen map[string]*[3]int // condition position → counts by outcome
}

// NewCoverage returns an empty Coverage.
func NewCoverage() *Coverage {
	return &Coverage{seen: make(map[string]*[3]int)}
}

// record counts one outcome; a nil *Coverage records nothing, so deciding
// pays for coverage only when a caller asks for it.
func (c *Coverage) record(pos string, o condOutcome) {
	if c == nil {
		return
	}
	n := c.seen[pos]
	if n == nil {
		n = new([3]int)
		c.seen[pos] = n
	}
	n[o]++
}

// ConditionCoverage is one condition of a policy and what deciding made of
// it.
type ConditionCoverage struct {
	// Rule is the id of the rule the condition belongs to.
	Rule string `json:"rule"`
	// Pos is file:line:col of the condition.
	Pos string `json:"pos"`
	// Source is the CEL expression.
	Source string `json:"source"`
	// Approval marks a condition of the rule's approval section (when).
	Approval bool `json:"approval,omitempty"`
	// True, False and Errors count the evaluations by outcome.
	True   int `json:"true"`
	False  int `json:"false"`
	Errors int `json:"errors"`
}

// Covered reports whether the condition was decided both ways: only then
// did the probing requests exercise both sides of it.
func (c ConditionCoverage) Covered() bool { return c.True > 0 && c.False > 0 }

// Coverage lists every condition of p, in file order (rules, a2e, ambient),
// with the outcomes cov counted for it. cov may be nil.
func (p *Policy) Coverage(cov *Coverage) []ConditionCoverage {
	var out []ConditionCoverage
	add := func(ruleID string, conds []condition, approval bool) {
		for _, c := range conds {
			cc := ConditionCoverage{Rule: ruleID, Pos: c.pos, Source: c.src, Approval: approval}
			if cov != nil {
				if n := cov.seen[c.pos]; n != nil {
					cc.True, cc.False, cc.Errors = n[condTrue], n[condFalse], n[condError]
				}
			}
			out = append(out, cc)
		}
	}
	for _, r := range p.rules {
		add(r.id, r.conds, false)
		if r.approval != nil {
			add(r.id, r.approval.when, true)
		}
	}
	for _, r := range p.a2e {
		add(r.id, r.conds, false)
	}
	for _, r := range p.ambient {
		add(r.id, r.conds, false)
	}
	return out
}

// DecideCovered is Decide, counting every condition it evaluates in cov.
func (p *Policy) DecideCovered(ctx context.Context, in Input, cov *Coverage) Decision {
	return p.decide(ctx, in, nil, cov)
}

// DecideA2ECovered is DecideA2E, counting every condition it evaluates in
// cov.
func (p *Policy) DecideA2ECovered(ctx context.Context, in A2EInput, cov *Coverage) A2EDecision {
	return p.decideA2E(ctx, in, nil, cov)
}

// DecideAmbientCovered is DecideAmbient, counting every condition it
// evaluates in cov.
func (p *Policy) DecideAmbientCovered(ctx context.Context, in AmbientInput, cov *Coverage) Decision {
	return p.decideAmbient(ctx, in, nil, cov)
}
