package a2afront

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// capabilitiesRequest is a2a/capabilities/request: it issues what the
// grant permits ∩ what the caller asked for ∩ what the principal's policy
// allows, one capability per grant, with opaque handles for the resources
// the query resolves to within policy. An empty intersection is a
// grant_denied error naming the rules and reasons, never an empty
// capability. A request the policy lets through only with a human's
// approval is held instead (approval.go), and params naming an approvalId
// ask for its outcome.
func (f *Front) capabilitiesRequest(ctx context.Context, c *call) outcome {
	p, err := requestParams(c.req)
	if err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	if e := f.frozen(ctx, c.agent.cfg.Name, c.principal.ID); e != nil {
		f.auditIssue(ctx, c, p, policy.Decision{}, nil, frozenOutcome(e))
		return fail(c.req.ID, e)
	}
	if p.ApprovalID != "" {
		return f.redeemApproval(ctx, c, p)
	}
	if e := checkRequestParams(p); e != nil {
		return fail(c.req.ID, e)
	}
	if e := f.limit(ctx, c, ratelimit.Issue, 1); e != nil {
		f.auditIssue(ctx, c, p, policy.Decision{}, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	now := f.deps.Now()
	in := f.policyInput(c, p, now)
	d := f.deps.Policy.Current().Decide(ctx, in)
	f.shadow(ctx, c, in, d)
	if !d.Allow {
		f.auditIssue(ctx, c, p, d, nil, "grant_denied")
		return fail(c.req.ID, denial(d))
	}
	found, e := f.resolveFor(ctx, c, in.Resource, d)
	if e != nil {
		f.auditIssue(ctx, c, p, d, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	if d.NeedsApproval() {
		return f.holdForApproval(ctx, c, p, in, d, found)
	}
	var caps []sep.Capability
	for _, gd := range d.Grants {
		capb, e := f.issue(ctx, c, in, found, gd, d.Revision)
		if e != nil {
			f.auditIssue(ctx, c, p, d, nil, reasonOf(e))
			return fail(c.req.ID, e)
		}
		caps = append(caps, capb)
	}
	f.auditIssue(ctx, c, p, d, caps, "issued")
	return answered(jsonrpc.NewResult(c.req.ID, sep.CapabilitiesResult{Capabilities: caps, PolicyRevision: d.Revision}))
}

// policyInput is the request as policy decides it, with the gateway's own
// ceiling on a capability's life.
func (f *Front) policyInput(c *call, p sep.RequestParams, now time.Time) policy.Input {
	in := policy.Input{
		Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name,
		Grants: p.Grants, Operations: p.Operations, Purpose: p.Purpose,
		MaxTTL: f.cfg.MaxTTL, Now: now,
	}
	if p.ResourceQuery != nil {
		q := policy.ResourceQuery(*p.ResourceQuery)
		in.Resource = &q
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
// the query resolved to that this grant's decision permits. Its expiry is
// the decision's, which already holds the gateway's ceiling.
func (f *Front) issue(ctx context.Context, c *call, in policy.Input, found []policy.Resource, gd policy.GrantDecision, rev string) (sep.Capability, *jsonrpc.Error) {
	whole := c.agent.wholeAgent(gd.Grant)
	if whole {
		if e := wholeAgentAllowed(in, gd, rev); e != nil {
			return sep.Capability{}, e
		}
		found = nil
	}
	resources, names := map[string]string{}, map[string]string{}
	var handles []string
	for _, r := range found {
		if !in.Resource.Matches(r) || !gd.Permits(r) {
			continue
		}
		h := captoken.NewHandle()
		handles = append(handles, h)
		resources[h], names[h] = r.ID, r.DisplayName
	}
	if len(handles) == 0 && !whole {
		return sep.Capability{}, capErr(jsonrpc.CodeGrantDenied, "grant denied: no resource matches the query within policy",
			map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev})
	}
	claims := captoken.Claims{
		Issuer: f.cfg.Issuer, Principal: c.principal.ID, Holder: c.principal.ID,
		Audience: c.agent.cfg.Name, CapabilityID: captoken.NewCapabilityID(), Grant: gd.Grant,
		Operations: gd.Operations, Handles: handles, Expiry: captoken.NewNumericDate(gd.Expires),
		NotBefore: captoken.NewNumericDate(in.Now), IssuedAt: captoken.NewNumericDate(in.Now),
		RevocationID: captoken.NewRevocationID(), MaxDepth: gd.MaxDepth, Purpose: in.Purpose,
		Attenuable: gd.Attenuable, PolicyRevision: rev,
	}
	token, err := captoken.Mint(f.deps.Keys, claims, resources)
	if errors.Is(err, captoken.ErrTooLarge) {
		return sep.Capability{}, tooLarge(gd.Grant)
	}
	if err != nil {
		f.deps.Logger.ErrorContext(ctx, "mint failed", "error", err)
		return sep.Capability{}, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	if err := f.index(ctx, token, &claims, names); err != nil {
		return sep.Capability{}, f.indexError(ctx, err)
	}
	f.recordLive(ctx, c, claims.CapabilityID, claims.Expiry.Time())
	return wireCapability(token, &claims, names), nil
}

func reasonOf(e *jsonrpc.Error) string {
	if r := e.Reason(); r != "" {
		return r
	}
	return strings.ToLower(e.Message)
}

// Issuance for agents that have no resources to name, or no way to
// resolve them. A grant marked whole_agent designates the agent as a
// whole: its capabilities carry no handles, so issuing one resolves
// nothing. Any other grant needs the agent's resources, from the
// config's catalog or the agent's a2a/resources/resolve hook; an agent
// with neither gets a documented grant_denied (detail no_resolver), not
// an internal error.

// wholeAgent reports whether grant is one of a's whole-agent grants.
func (a *agent) wholeAgent(grant string) bool {
	for _, g := range a.cfg.Grants {
		if g.ID == grant {
			return g.WholeAgent
		}
	}
	return false
}

// wholeAgentAllowed refuses a whole-agent capability that would be wider
// than what was asked or allowed: a request that named resources, or a
// policy rule that constrains them (a capability naming no resources
// cannot honour a constraint on them).
func wholeAgentAllowed(in policy.Input, gd policy.GrantDecision, rev string) *jsonrpc.Error {
	data := map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev}
	if q := in.Resource; q != nil && (q.Collection != "" || len(q.Filter) > 0) {
		return capErr(jsonrpc.CodeGrantDenied, "grant denied: "+gd.Grant+" covers the agent as a whole and takes no resourceQuery", data)
	}
	if !gd.Resource.IsZero() || len(gd.Excluded) > 0 {
		return capErr(jsonrpc.CodeGrantDenied, "grant denied: the policy constrains the resources of "+gd.Grant+", which names none", data)
	}
	return nil
}

// resolveFor resolves the request's resources when a granted grant needs
// them; a decision of whole-agent grants only resolves nothing.
func (f *Front) resolveFor(ctx context.Context, c *call, q *policy.ResourceQuery, d policy.Decision) ([]policy.Resource, *jsonrpc.Error) {
	need := false
	for _, gd := range d.Grants {
		need = need || !c.agent.wholeAgent(gd.Grant)
	}
	if !need {
		return nil, nil
	}
	found, err := f.resolve(ctx, c, q)
	switch {
	case errors.Is(err, ErrNoResolver):
		return nil, capErr(jsonrpc.CodeGrantDenied, "grant denied: agent "+c.agent.cfg.Name+
			" cannot resolve resources (it serves no a2a/resources/resolve, and the config gives it no catalog)",
			map[string]any{"detail": "no_resolver"})
	case err != nil:
		f.deps.Logger.WarnContext(ctx, "resource resolution failed", "agent", c.agent.cfg.Name, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent could not resolve the resource query",
			Data: map[string]string{"reason": "resolution_failed"}}
	}
	return found, nil
}
