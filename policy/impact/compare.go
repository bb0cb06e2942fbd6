package impact

import (
	"context"
	"slices"
	"strings"

	"github.com/capgate/capgate/policy"
)

// Direction says whether a change gives more or less.
type Direction string

// Directions of a change.
const (
	// Widens means the new policy allows more.
	Widens Direction = "widens"
	// Narrows means the new policy allows less.
	Narrows Direction = "narrows"
)

// Change is one difference between the decisions of two policies on one
// request, for one grant, A2E capability or ambient call.
type Change struct {
	// Direction is widens or narrows.
	Direction Direction `json:"direction"`
	// Rule is the rule that caused the change (see RuleIn).
	Rule string `json:"rule"`
	// RuleIn says which policy the rule is in: "old" or "new"; empty when
	// the change is the default deny of the new policy.
	RuleIn string `json:"ruleIn,omitempty"`
	// Kind is what was asked: request, a2e or ambient.
	Kind string `json:"kind"`
	// Subject is the agent and grant, the host and capability, or the
	// agent, method and skill.
	Subject string `json:"subject"`
	// What describes the change.
	What string `json:"what"`
	// Principals lists every principal the change applies to.
	Principals []policy.Principal `json:"principals"`
	// Requests describes every request (resource, purpose) it applies to;
	// empty for A2E and ambient calls.
	Requests []string `json:"requests,omitempty"`
}

// Report is the outcome of Compare.
type Report struct {
	// Old and New are the revisions compared.
	Old string `json:"old"`
	New string `json:"new"`
	// Principals and Decisions count what the universe held.
	Principals int `json:"principals"`
	Decisions  int `json:"decisions"`
	// Changes lists every difference, grouped by rule (widenings first
	// within each rule), each once.
	Changes []Change `json:"changes"`
	// Uncovered lists the conditions of either policy that the universe
	// did not decide both true and false.
	Uncovered []Uncovered `json:"uncovered,omitempty"`
}

// Uncovered is a condition the universe did not decide both ways.
type Uncovered struct {
	policy.ConditionCoverage
	// In says which policy the condition is in: "old" or "new".
	In string `json:"in"`
}

// Widens reports whether any change widens.
func (r *Report) Widens() bool {
	return slices.ContainsFunc(r.Changes, func(c Change) bool { return c.Direction == Widens })
}

// Count returns the number of changes in direction d.
func (r *Report) Count(d Direction) int {
	n := 0
	for _, c := range r.Changes {
		if c.Direction == d {
			n++
		}
	}
	return n
}

// Compare decides every request of u under old and new and reports the
// differences.
func Compare(ctx context.Context, old, new *policy.Policy, u *Universe) *Report {
	r := &Report{Old: old.Revision(), New: new.Revision(), Principals: len(u.Principals), Decisions: u.Size()}
	oc, nc := policy.NewCoverage(), policy.NewCoverage()
	var changes []Change
	for _, in := range u.Requests {
		changes = append(changes, compareRequest(in, in.Grants[:1], old.DecideCovered(ctx, in, oc), new.DecideCovered(ctx, in, nc))...)
	}
	for _, in := range u.Observed {
		changes = append(changes, compareRequest(in, in.Grants, old.DecideCovered(ctx, in, oc), new.DecideCovered(ctx, in, nc))...)
	}
	for _, in := range u.A2E {
		changes = append(changes, compareA2E(in, old.DecideA2ECovered(ctx, in, oc), new.DecideA2ECovered(ctx, in, nc))...)
	}
	for _, in := range u.Ambient {
		changes = append(changes, compareAmbient(in, old.DecideAmbientCovered(ctx, in, oc), new.DecideAmbientCovered(ctx, in, nc))...)
	}
	r.Changes = group(changes)
	r.Uncovered = append(uncovered(old.Coverage(oc), "old"), uncovered(new.Coverage(nc), "new")...)
	return r
}

func uncovered(all []policy.ConditionCoverage, in string) []Uncovered {
	var out []Uncovered
	for _, c := range all {
		if !c.Covered() {
			out = append(out, Uncovered{ConditionCoverage: c, In: in})
		}
	}
	return out
}

// group merges the changes that differ only by principal or request,
// then orders them by rule (in order of first appearance), widenings
// before narrowings.
func group(changes []Change) []Change {
	var out []Change
	at := map[string]int{}
	for _, c := range changes {
		k := strings.Join([]string{c.RuleIn, c.Rule, string(c.Direction), c.Kind, c.Subject, c.What}, "\x00")
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			first := c
			first.Principals, first.Requests = nil, nil
			out = append(out, first)
		}
		m := &out[i]
		for _, p := range c.Principals {
			if !slices.ContainsFunc(m.Principals, func(q policy.Principal) bool { return principalKey(p) == principalKey(q) }) {
				m.Principals = append(m.Principals, p)
			}
		}
		for _, r := range c.Requests {
			if !slices.Contains(m.Requests, r) {
				m.Requests = append(m.Requests, r)
			}
		}
	}
	for i := range out {
		// Principals the trail, the tests or the rules name come first.
		slices.SortStableFunc(out[i].Principals, func(a, b policy.Principal) int {
			return boolRank(a.ID == unnamed) - boolRank(b.ID == unnamed)
		})
	}
	order := map[string]int{}
	for _, c := range out {
		if _, ok := order[c.RuleIn+" "+c.Rule]; !ok {
			order[c.RuleIn+" "+c.Rule] = len(order)
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		if d := order[a.RuleIn+" "+a.Rule] - order[b.RuleIn+" "+b.Rule]; d != 0 {
			return d
		}
		return strings.Compare(string(b.Direction), string(a.Direction)) // widens first
	})
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
