package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// maxRequestedGrants bounds one capability request.
const maxRequestedGrants = 16

// capabilitiesRequest is a2a/capabilities/request: it issues what the
// grant permits ∩ what the caller asked for ∩ what the principal's policy
// allows, one capability per grant, with opaque handles for the resources
// the query resolves to within policy. An empty intersection is a
// grant_denied error naming the rules and reasons, never an empty
// capability.
func (g *Gateway) capabilitiesRequest(ctx context.Context, c *call) outcome {
	var p requestParams
	if err := jsonrpc.UnmarshalParams(c.req.Params, &p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	if len(p.Grants) == 0 || len(p.Grants) > maxRequestedGrants {
		return fail(c.req.ID, capErr(jsonrpc.CodeInvalidParams, fmt.Sprintf("grants must list 1 to %d grant ids", maxRequestedGrants), nil))
	}
	pol := g.caps.Policy.Current()
	now := g.now()
	d := pol.Decide(ctx, policyInput(c, p, now))
	if !d.Allow {
		g.auditIssue(ctx, c, p, d, nil, "grant_denied")
		return fail(c.req.ID, denial(d))
	}
	found, err := g.resolve(ctx, c.agent, c.principal.ID, p.ResourceQuery)
	if err != nil {
		g.logger.WarnContext(ctx, "resource resolution failed", "agent", c.agent.cfg.Name, "error", err)
		g.auditIssue(ctx, c, p, d, nil, "resolution_failed")
		return fail(c.req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent could not resolve the resource query",
			Data: map[string]string{"reason": "resolution_failed"}})
	}
	var caps []capability
	for _, gd := range d.Grants {
		capb, e := g.issue(ctx, c, p, found, gd, d.Revision, now)
		if e != nil {
			g.auditIssue(ctx, c, p, d, nil, reasonOf(e))
			return fail(c.req.ID, e)
		}
		caps = append(caps, capb)
	}
	g.auditIssue(ctx, c, p, d, caps, "issued")
	return answer(jsonrpc.NewResult(c.req.ID, capabilitiesResult{Capabilities: caps, PolicyRevision: d.Revision}))
}

func policyInput(c *call, p requestParams, now time.Time) policy.Input {
	in := policy.Input{
		Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name,
		Grants: p.Grants, Operations: p.Operations, Purpose: p.Purpose, Now: now,
	}
	if p.ResourceQuery != nil {
		in.Resource = &policy.ResourceQuery{Collection: p.ResourceQuery.Collection, Filter: p.ResourceQuery.Filter}
	}
	if p.Expires != nil {
		in.Expires = *p.Expires
	}
	return in
}

// denial renders a policy denial as grant_denied, naming the rules and the
// reasons so the caller (and the audit) knows which rule and why.
func denial(d policy.Decision) *jsonrpc.Error {
	rules := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		rules = append(rules, string(m.Effect)+" "+m.ID)
	}
	texts := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		texts = append(texts, r.Text)
	}
	msg := "grant denied"
	if len(texts) > 0 {
		msg += ": " + texts[len(texts)-1]
	}
	return capErr(jsonrpc.CodeGrantDenied, msg, map[string]any{
		"rules": rules, "reasons": d.Reasons, "policyRevision": d.Revision,
	})
}

// issue mints one capability for one granted grant, over the resources
// the query resolved to that this grant's decision permits.
func (g *Gateway) issue(ctx context.Context, c *call, p requestParams, found []resolvedResource, gd policy.GrantDecision, rev string, now time.Time) (capability, *jsonrpc.Error) {
	resources, names := map[string]string{}, map[string]string{}
	var handles []string
	for _, r := range found {
		if !matchesQuery(r, p.ResourceQuery) || !gd.Permits(r.policyResource()) {
			continue
		}
		h := captoken.NewHandle()
		handles = append(handles, h)
		resources[h], names[h] = r.ID, r.DisplayName
	}
	if len(handles) == 0 {
		return capability{}, capErr(jsonrpc.CodeGrantDenied, "grant denied: no resource matches the query within policy",
			map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev})
	}
	expires := gd.Expires
	if ceiling := now.Add(g.cfg.Capabilities.MaxTTL.D()); expires.After(ceiling) {
		expires = ceiling
	}
	claims := captoken.Claims{
		Issuer: g.cfg.Capabilities.Issuer, Principal: c.principal.ID, Holder: c.principal.ID,
		Audience: c.agent.cfg.Name, CapabilityID: captoken.NewCapabilityID(), Grant: gd.Grant,
		Operations: gd.Operations, Handles: handles, Expiry: captoken.NewNumericDate(expires),
		NotBefore: captoken.NewNumericDate(now), IssuedAt: captoken.NewNumericDate(now),
		RevocationID: captoken.NewRevocationID(), MaxDepth: gd.MaxDepth, Purpose: p.Purpose,
		Attenuable: gd.Attenuable, PolicyRevision: rev,
	}
	token, err := captoken.Mint(g.caps.Keys, claims, resources)
	if err != nil {
		g.logger.ErrorContext(ctx, "mint failed", "error", err)
		return capability{}, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	if err := g.caps.Index.Put(ctx, indexRecord(token, &claims, names)); err != nil {
		g.logger.ErrorContext(ctx, "capability index unavailable", "error", err)
		return capability{}, capErr(jsonrpc.CodeRevocationUnavailable, "capability store unavailable; try again", nil)
	}
	return wireCapability(token, &claims, names), nil
}

// matchesQuery re-checks an agent's answer against the query, so an agent
// that answers too broadly cannot widen what is issued.
func matchesQuery(r resolvedResource, q *resourceQuery) bool {
	if q == nil {
		return true
	}
	if q.Collection != "" && r.Collection != q.Collection {
		return false
	}
	for k, v := range q.Filter {
		if r.Attributes[k] != v {
			return false
		}
	}
	return true
}

func reasonOf(e *jsonrpc.Error) string {
	if r := e.Reason(); r != "" {
		return r
	}
	return strings.ToLower(e.Message)
}
