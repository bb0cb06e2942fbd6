package replay

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/capgate/capgate/policy"
)

// request is the request member of a capability.issue event.
type request struct {
	Issuer     string                `json:"issuer"`
	Groups     []string              `json:"groups"`
	Claims     map[string]any        `json:"claims"`
	Operations []string              `json:"operations"`
	Resource   *policy.ResourceQuery `json:"resource_query"`
	Expires    time.Time             `json:"expires"`
	MaxTTL     string                `json:"max_ttl"`
	ApprovalID string                `json:"approval_id"`
}

// input rebuilds the policy input an issue event records, and whether
// the request redeemed an approval.
func input(ev event) (policy.Input, bool, bool) {
	raw, ok := ev["request"]
	if !ok {
		return policy.Input{}, false, false
	}
	b, _ := json.Marshal(raw)
	var r request
	if json.Unmarshal(b, &r) != nil {
		return policy.Input{}, false, false
	}
	ttl, err := time.ParseDuration(r.MaxTTL)
	if err != nil {
		return policy.Input{}, false, false
	}
	return policy.Input{
		Principal: policy.Principal{ID: ev.str("principal"), Issuer: r.Issuer, Groups: r.Groups, Claims: r.Claims},
		Agent:     ev.str("agent"), Grants: ev.strs("grants"), Operations: r.Operations, Resource: r.Resource,
		Purpose: ev.str("purpose"), Expires: r.Expires, MaxTTL: ttl, Now: ev.when(),
	}, r.ApprovalID != "", true
}

// issue re-decides a capability request.
func (p *replayer) issue(ctx context.Context, line int, ev event) {
	was := ev.str("decision")
	if was != "issued" && was != "grant_denied" {
		return // not the policy's decision: a limit, a store, a freeze
	}
	in, approved, ok := input(ev)
	if !ok {
		p.lack(line, ev, "the event does not record the request (a trail written before events carried it)")
		return
	}
	p.rep.Replayed++
	d := p.pol.Decide(ctx, in)
	now := "issued"
	why := "rules " + joined(rulesText(d))
	switch {
	case !d.Allow:
		now, why = "denied", denialText(d)
	case d.NeedsApproval() && !approved: // a redemption had the approval the policy asks for
		now, why = "waits for approval", "rules "+joined(rulesText(d))
	}
	for _, id := range ev.strs("capability_ids") {
		p.roots[id] = root{issueLine: line, issued: now == "issued"}
	}
	wasWord := map[bool]string{true: "issued", false: "denied"}[was == "issued"]
	switch {
	case wasWord != now:
		p.change(line, ev, wasWord, now, why)
	case now == "issued" && !same(ev.strs("rules"), rulesText(d)):
		p.change(line, ev, "issued by rules "+joined(ev.strs("rules")), "issued by rules "+joined(rulesText(d)), "a different rule decides")
	}
}

// derive follows an attenuation or delegation to its parent's root.
func (p *replayer) derive(line int, ev event) {
	parent := first(ev, "parent_capability_id", "parent_id")
	r, ok := p.roots[parent]
	if !ok {
		p.lack(line, ev, "its root capability was issued before the trail starts")
		return
	}
	if id := ev.str("capability_id"); id != "" {
		p.roots[id] = r
	}
	p.follow(line, ev, r, map[string]bool{"attenuated": true, "delegated": true}[ev.str("decision")])
}

// use follows an invocation to its capability's root.
func (p *replayer) use(line int, ev event) {
	id := ev.str("capability_id")
	if id == "" {
		return // refused before a capability was found: not the policy's
	}
	r, ok := p.roots[id]
	if !ok {
		p.lack(line, ev, "its capability was issued before the trail starts")
		return
	}
	p.follow(line, ev, r, ev.str("decision") == "allowed")
}

// follow reports a use that succeeded although its root would no longer
// be issued.
func (p *replayer) follow(line int, ev event, r root, succeeded bool) {
	p.rep.Replayed++
	if succeeded && !r.issued {
		p.change(line, ev, ev.str("decision"), "refused",
			"its root capability would not be issued (the issuance on line "+strconv.Itoa(r.issueLine)+")")
	}
}
