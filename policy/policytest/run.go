package policytest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

// Result is the outcome of one case.
type Result struct {
	// Case is the case that ran.
	Case Case
	// Failures lists every mismatch; empty means the case passed.
	Failures []string
}

// Passed reports whether the case met every expectation.
func (r Result) Passed() bool { return len(r.Failures) == 0 }

// Run decides every case against p and checks its expectations. It never
// stops early: every case gets a Result, in file order.
func (s *Suite) Run(ctx context.Context, p *policy.Policy) []Result {
	out := make([]Result, 0, len(s.Cases))
	for _, c := range s.Cases {
		ck := &checker{}
		who := s.Principals[c.Principal]
		switch {
		case c.Request != nil:
			s.runRequest(ctx, p, c, who, ck)
		case c.A2E != nil:
			d := p.DecideA2E(ctx, policy.A2EInput{Principal: who, Host: c.A2E.Host, Capabilities: c.A2E.Capabilities, Now: s.Now})
			checkA2E(ck, c.Expect, d)
		case c.Ambient != nil:
			d := p.DecideAmbient(ctx, policy.AmbientInput{Principal: who, Agent: c.Ambient.Agent,
				Skill: c.Ambient.Skill, Method: c.Ambient.Method, Now: s.Now})
			checkDecision(ck, c.Expect, d)
		}
		out = append(out, Result{Case: c, Failures: ck.failures})
	}
	return out
}

// Input builds the policy.Input of a request case.
func (s *Suite) Input(c Case) (policy.Input, error) {
	r := c.Request
	exp, err := s.expiry(r.Expires)
	if err != nil {
		return policy.Input{}, err
	}
	in := policy.Input{Principal: s.Principals[c.Principal], Agent: r.Agent, Grants: r.Grants,
		Operations: r.Operations, Purpose: r.Purpose, Expires: exp, Now: s.Now}
	if r.Collection != "" || len(r.Filter) > 0 {
		in.Resource = &policy.ResourceQuery{Collection: r.Collection, Filter: r.Filter}
	}
	return in, nil
}

func (s *Suite) runRequest(ctx context.Context, p *policy.Policy, c Case, who policy.Principal, ck *checker) {
	in, err := s.Input(c)
	if err != nil {
		ck.fail("%v", err)
		return
	}
	in.Principal = who
	d := p.Decide(ctx, in)
	checkDecision(ck, c.Expect, d)
	if c.Expect.Grants != nil {
		ck.sameSet("issued grants", slices.Collect(maps.Keys(c.Expect.Grants)), issuedGrants(d))
	}
	for g, ge := range c.Expect.Grants {
		for _, gd := range d.Grants {
			if gd.Grant == g {
				checkGrant(ck, g, ge, gd, s.Now)
			}
		}
	}
	for g, ruleID := range c.Expect.Denied {
		if slices.Contains(issuedGrants(d), g) {
			ck.fail("grant %q was issued; expected it denied", g)
			continue
		}
		checkNamed(ck, g, ruleID, d.Reasons)
	}
}

// checkNamed checks that a denial of g names ruleID ("default": default deny).
func checkNamed(ck *checker, g, ruleID string, reasons []policy.Reason) {
	if ruleID == "" {
		return
	}
	for _, r := range reasons {
		if r.Grant != g {
			continue
		}
		if (ruleID == "default" && r.Part == policy.PartDefault) || r.Rule == ruleID {
			return
		}
	}
	ck.fail("grant %q: no reason names rule %q; reasons: %s", g, ruleID, reasonTexts(reasons, g))
}

func checkDecision(ck *checker, e Expect, d policy.Decision) {
	if e.Allow != nil && d.Allow != *e.Allow {
		ck.fail("allow = %t, want %t; reasons: %s", d.Allow, *e.Allow, reasonTexts(d.Reasons, ""))
	}
	for _, id := range e.Matched {
		if !slices.ContainsFunc(d.Matched, func(m policy.RuleRef) bool { return m.ID == id }) {
			ck.fail("rule %q did not take effect (matched: %v)", id, d.Matched)
		}
	}
}

func checkGrant(ck *checker, g string, e GrantExpect, gd policy.GrantDecision, now time.Time) {
	if e.Rule != "" && gd.Rule != e.Rule {
		ck.fail("grant %q: issued by rule %q, want %q", g, gd.Rule, e.Rule)
	}
	if e.Operations != nil {
		ck.sameSet("grant "+g+" operations", e.Operations, gd.Operations)
	}
	if e.Collection != nil && gd.Resource.Collection != *e.Collection {
		ck.fail("grant %q: collection %q, want %q", g, gd.Resource.Collection, *e.Collection)
	}
	for k, vals := range e.Filter {
		ck.sameSet("grant "+g+" filter "+k, vals, gd.Resource.Filter[k])
	}
	if d, _ := parseDuration(e.ExpiresIn); d != 0 && !gd.Expires.Equal(now.Add(d)) {
		ck.fail("grant %q: expires in %s, want %s", g, gd.Expires.Sub(now), d)
	}
	if e.MaxDepth != nil && gd.MaxDepth != *e.MaxDepth {
		ck.fail("grant %q: max depth %d, want %d", g, gd.MaxDepth, *e.MaxDepth)
	}
	if e.Attenuable != nil && gd.Attenuable != *e.Attenuable {
		ck.fail("grant %q: attenuable %t, want %t", g, gd.Attenuable, *e.Attenuable)
	}
	checkApproval(ck, g, e.Approval, gd.Approval)
	for _, r := range e.Permits {
		if !gd.Permits(r) {
			ck.fail("grant %q: does not permit %s/%s", g, r.Collection, r.ID)
		}
	}
	for _, r := range e.Refuses {
		if gd.Permits(r) {
			ck.fail("grant %q: permits %s/%s, want refused", g, r.Collection, r.ID)
		}
	}
}

func checkA2E(ck *checker, e Expect, d policy.A2EDecision) {
	if e.Allowed != nil {
		ck.sameSet("allowed A2E capabilities", e.Allowed, d.Allowed)
	}
	for c, ruleID := range e.Denied {
		why, denied := d.Denied[c]
		switch {
		case !denied:
			ck.fail("capability %q was allowed; expected it denied", c)
		case ruleID == "default" && !strings.Contains(why, "default deny"):
			ck.fail("capability %q: denied by %q, want default deny", c, why)
		case ruleID != "" && ruleID != "default" && !strings.Contains(why, fmt.Sprintf("%q", ruleID)):
			ck.fail("capability %q: denied by %q, want rule %q", c, why, ruleID)
		}
	}
	for _, id := range e.Matched {
		if !slices.ContainsFunc(d.Matched, func(m policy.RuleRef) bool { return m.ID == id }) {
			ck.fail("rule %q did not take effect (matched: %v)", id, d.Matched)
		}
	}
}

func issuedGrants(d policy.Decision) []string {
	out := make([]string, 0, len(d.Grants))
	for _, gd := range d.Grants {
		out = append(out, gd.Grant)
	}
	return out
}

func reasonTexts(reasons []policy.Reason, g string) string {
	var out []string
	for _, r := range reasons {
		if g == "" || r.Grant == g {
			out = append(out, r.Text)
		}
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// checker accumulates failures.
type checker struct{ failures []string }

func (c *checker) fail(format string, args ...any) {
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// sameSet fails unless want and got hold the same elements.
func (c *checker) sameSet(what string, want, got []string) {
	w, g := slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(got))
	if !slices.Equal(w, g) {
		c.fail("%s = %v, want %v", what, g, w)
	}
}

// checkApproval fails when a grant waits for approval that the case does
// not expect, or does not wait for one it expects, or names other
// approvers.
func checkApproval(ck *checker, g string, e *ApprovalExpect, got *policy.Approval) {
	switch {
	case e == nil && got != nil:
		ck.fail("grant %q: needs approval by %s, which the case does not expect (write approval: under the grant)", g, got.Approvers)
	case e != nil && got == nil:
		ck.fail("grant %q: issued without approval, want approval by groups %v ids %v", g, e.Groups, e.IDs)
	case e != nil:
		ck.sameSet("grant "+g+" approver groups", e.Groups, got.Approvers.Groups)
		ck.sameSet("grant "+g+" approver ids", e.IDs, got.Approvers.IDs)
		if d, _ := parseDuration(e.Wait); d != 0 && d != got.Wait {
			ck.fail("grant %q: approval waits at most %s, want %s", g, got.Wait, e.Wait)
		}
	}
}
