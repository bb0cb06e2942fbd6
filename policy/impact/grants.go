package impact

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

// compareRequest compares, for each grant of compared, what old and new
// issue on request in.
func compareRequest(in policy.Input, compared []string, od, nd policy.Decision) []Change {
	var out []Change
	base := Change{Principals: []policy.Principal{in.Principal}, Kind: "request", Requests: []string{describeRequest(in)}}
	for i, g := range compared {
		if slices.Contains(compared[:i], g) {
			continue
		}
		og, oldOK := grantOf(od, g)
		ng, newOK := grantOf(nd, g)
		c := base
		c.Subject = in.Agent + " " + g
		switch {
		case !oldOK && newOK:
			c.Direction, c.Rule, c.RuleIn = Widens, ng.Rule, "new"
			c.What = "denied → issued: " + describeGrant(ng, in.Now)
			out = append(out, c)
		case oldOK && !newOK:
			c.Direction = Narrows
			why := denial(nd, g, og.Rule)
			c.Rule, c.RuleIn = why.Rule, "new"
			if why.Rule == "" {
				c.Rule, c.RuleIn = og.Rule, "old"
			}
			c.What = "issued → denied: " + why.Text
			out = append(out, c)
		case oldOK && newOK:
			out = append(out, grantChanges(c, og, ng, in.Now)...)
		}
	}
	return out
}

// grantOf returns the decision's grant g.
func grantOf(d policy.Decision, g string) (policy.GrantDecision, bool) {
	for _, gd := range d.Grants {
		if gd.Grant == g {
			return gd, true
		}
	}
	return policy.GrantDecision{}, false
}

// denial is the new policy's reason for denying g: the deny rule, else
// why the rule that issued it under the old policy no longer does (its
// Rule empty when the new policy has no such rule), else the last reason.
func denial(nd policy.Decision, g, oldRule string) policy.Reason {
	var miss, last *policy.Reason
	for i := range nd.Reasons {
		r := &nd.Reasons[i]
		if r.Grant != g && r.Grant != "" {
			continue
		}
		switch {
		case r.Rule != "" && (r.Part == policy.PartDeny || r.Part == policy.PartRequires):
			return *r
		case r.Rule == oldRule && miss == nil:
			miss = r
		}
		last = r
	}
	switch {
	case miss != nil:
		return *miss
	case last != nil:
		return policy.Reason{Text: last.Text}
	}
	return policy.Reason{Text: "no reason given"}
}

// grantChanges compares a grant both policies issue, part by part.
func grantChanges(c Change, og, ng policy.GrantDecision, now time.Time) []Change {
	var out []Change
	c.Rule, c.RuleIn = ng.Rule, "new"
	via := ""
	if og.Rule != ng.Rule {
		via = " (was rule " + og.Rule + ")"
	}
	emit := func(d Direction, what string) {
		c.Direction, c.What = d, what+via
		out = append(out, c)
	}
	if added := minus(ng.Operations, og.Operations); len(added) > 0 {
		emit(Widens, "operations +"+strings.Join(added, ",")+" (now "+strings.Join(ng.Operations, ",")+")")
	}
	if removed := minus(og.Operations, ng.Operations); len(removed) > 0 {
		emit(Narrows, "operations -"+strings.Join(removed, ",")+" (now "+strings.Join(ng.Operations, ",")+")")
	}
	wider, narrower := resourceChange(og, ng)
	res := "resources " + describeResources(og) + " → " + describeResources(ng)
	if wider {
		emit(Widens, res)
	}
	if narrower {
		emit(Narrows, res)
	}
	if ot, nt := og.Expires.Sub(now), ng.Expires.Sub(now); ot != nt {
		emit(pick(nt > ot), "lifetime "+ot.String()+" → "+nt.String())
	}
	if og.MaxDepth != ng.MaxDepth {
		emit(pick(ng.MaxDepth > og.MaxDepth), fmt.Sprintf("delegation depth %d → %d", og.MaxDepth, ng.MaxDepth))
	}
	switch {
	case og.Approval != nil && ng.Approval == nil:
		emit(Widens, "no longer waits for approval by "+og.Approval.Approvers.String())
	case og.Approval == nil && ng.Approval != nil:
		emit(Narrows, "now waits for approval by "+ng.Approval.Approvers.String())
	case og.Approval != nil && ng.Approval != nil && og.Approval.Approvers.String() != ng.Approval.Approvers.String():
		emit(Widens, "approvers "+og.Approval.Approvers.String()+" → "+ng.Approval.Approvers.String())
	}
	return out
}

// resourceChange says whether new's resources reach beyond old's (wider)
// and whether old's reach beyond new's (narrower), judged on the
// constraints: a constraint not provably inside the other counts.
func resourceChange(og, ng policy.GrantDecision) (wider, narrower bool) {
	wider = !og.Resource.Covers(ng.Resource)
	narrower = !ng.Resource.Covers(og.Resource)
	for _, ex := range og.Excluded {
		if !slices.ContainsFunc(ng.Excluded, func(e policy.ResourceConstraint) bool { return e.Covers(ex) }) {
			wider = true
		}
	}
	for _, ex := range ng.Excluded {
		if !slices.ContainsFunc(og.Excluded, func(e policy.ResourceConstraint) bool { return e.Covers(ex) }) {
			narrower = true
		}
	}
	return wider, narrower
}

func pick(wider bool) Direction {
	if wider {
		return Widens
	}
	return Narrows
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

func describeGrant(gd policy.GrantDecision, now time.Time) string {
	s := fmt.Sprintf("operations %s on %s, lifetime %s, depth %d", strings.Join(gd.Operations, ","),
		describeResources(gd), gd.Expires.Sub(now), gd.MaxDepth)
	if gd.Approval != nil {
		s += ", after approval by " + gd.Approval.Approvers.String()
	}
	return s
}

func describeResources(gd policy.GrantDecision) string {
	s := gd.Resource.String()
	for _, ex := range gd.Excluded {
		s += " except " + ex.String()
	}
	return s
}

// describeRequest renders what a request asks besides agent and grant.
func describeRequest(in policy.Input) string {
	var parts []string
	if len(in.Grants) > 1 {
		parts = append(parts, "with "+strings.Join(in.Grants[1:], ","))
	}
	if len(in.Operations) > 0 {
		parts = append(parts, "ops "+strings.Join(in.Operations, ","))
	}
	if q := in.Resource; q == nil {
		parts = append(parts, "any resource")
	} else {
		if q.Collection != "" {
			parts = append(parts, "collection="+q.Collection)
		}
		for _, k := range sorted(q.Filter) {
			parts = append(parts, k+"="+q.Filter[k])
		}
	}
	if in.Purpose != "" {
		parts = append(parts, "purpose "+fmt.Sprintf("%q", in.Purpose))
	}
	return strings.Join(parts, " ")
}
