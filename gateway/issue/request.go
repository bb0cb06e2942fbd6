package issue

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// asked is one capability request: who asked, at which target, for what.
type asked struct {
	caller *authn.Principal
	target Target
	params sep.RequestParams
}

// Request answers a2a/capabilities/request: it issues what the target's
// grant permits ∩ what the caller asked for ∩ what the principal's policy
// allows, one capability per grant, with opaque handles for the resources
// the query resolves to within policy. An empty intersection is a
// grant_denied error naming the rules and reasons, never an empty
// capability. A request the policy lets through only with a human's
// approval is held instead, and params naming an approvalId ask for its
// outcome. The result is a sep.CapabilitiesResult or a
// sep.PendingResult.
func (is *Issuer) Request(ctx context.Context, caller *authn.Principal, t Target, p sep.RequestParams) (any, *jsonrpc.Error) {
	a := asked{caller: caller, target: t, params: p}
	if e := is.frozen(ctx, t.Name(), caller.ID); e != nil {
		is.auditIssue(ctx, a, policy.Decision{}, nil, frozenOutcome(e))
		return nil, e
	}
	if p.ApprovalID != "" {
		return is.redeem(ctx, a)
	}
	if e := checkRequestParams(p); e != nil {
		return nil, e
	}
	if e := is.Limit(ctx, caller.ID, t.Name(), ratelimit.Issue, 1); e != nil {
		is.auditIssue(ctx, a, policy.Decision{}, nil, ReasonOf(e))
		return nil, e
	}
	in := is.policyInput(a, is.deps.Now())
	d := is.deps.Policy.Current().Decide(ctx, in)
	is.shadow(ctx, a, in, d)
	if !d.Allow {
		is.auditIssue(ctx, a, d, nil, "grant_denied")
		return nil, denial(d)
	}
	found, e := is.resolveFor(ctx, t, in.Resource, d)
	if e != nil {
		is.auditIssue(ctx, a, d, nil, ReasonOf(e))
		return nil, e
	}
	if d.NeedsApproval() {
		return is.hold(ctx, a, in, d, found)
	}
	return is.mintAll(ctx, a, in, d, d.Grants, func(int) []policy.Resource { return found })
}

// mintAll mints a capability for each of grants, the i-th over the real
// resources of resources(i), and audits the issuance, or the first
// refusal, which issues nothing more.
func (is *Issuer) mintAll(ctx context.Context, a asked, in policy.Input, d policy.Decision, grants []policy.GrantDecision,
	resources func(i int) []policy.Resource) (any, *jsonrpc.Error) {
	caps := make([]sep.Capability, 0, len(grants))
	for i, gd := range grants {
		capb, e := is.mint(ctx, a, in, resources(i), gd, d.Revision)
		if e != nil {
			is.auditIssue(ctx, a, d, nil, ReasonOf(e))
			return nil, e
		}
		caps = append(caps, capb)
	}
	is.auditIssue(ctx, a, d, caps, "issued")
	return sep.CapabilitiesResult{Capabilities: caps, PolicyRevision: d.Revision}, nil
}

// policyInput is the request as policy decides it, with the gateway's own
// ceiling on a capability's life.
func (is *Issuer) policyInput(a asked, now time.Time) policy.Input {
	p := a.params
	in := policy.Input{
		Principal: PolicyPrincipal(a.caller), Agent: a.target.Name(),
		Grants: p.Grants, Operations: p.Operations, Purpose: p.Purpose,
		MaxTTL: is.cfg.MaxTTL, Now: now,
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

// mint mints one capability for one granted grant, over the resources
// the query resolved to that this grant's decision permits. Its expiry is
// the decision's, which already holds the gateway's ceiling.
func (is *Issuer) mint(ctx context.Context, a asked, in policy.Input, found []policy.Resource, gd policy.GrantDecision, rev string) (sep.Capability, *jsonrpc.Error) {
	whole := wholeTarget(a.target, gd.Grant)
	if whole {
		if e := wholeTargetAllowed(in, gd, rev); e != nil {
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
		return sep.Capability{}, CapErr(jsonrpc.CodeGrantDenied, "grant denied: no resource matches the query within policy",
			map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev})
	}
	claims := captoken.Claims{
		Issuer: is.cfg.Issuer, Principal: a.caller.ID, Holder: a.caller.ID,
		Audience: a.target.Name(), CapabilityID: captoken.NewCapabilityID(), Grant: gd.Grant,
		Operations: gd.Operations, Handles: handles, Expiry: captoken.NewNumericDate(gd.Expires),
		NotBefore: captoken.NewNumericDate(in.Now), IssuedAt: captoken.NewNumericDate(in.Now),
		RevocationID: captoken.NewRevocationID(), MaxDepth: gd.MaxDepth, Purpose: in.Purpose,
		Attenuable: gd.Attenuable, PolicyRevision: rev,
	}
	token, err := captoken.Mint(is.deps.Keys, claims, resources)
	if errors.Is(err, captoken.ErrTooLarge) {
		return sep.Capability{}, tooLarge(gd.Grant)
	}
	if err != nil {
		is.deps.Logger.ErrorContext(ctx, "mint failed", "error", err)
		return sep.Capability{}, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	if err := is.Index(ctx, token, &claims, names); err != nil {
		return sep.Capability{}, is.IndexError(ctx, err)
	}
	is.RecordLive(ctx, a.caller.ID, a.target.Name(), claims.CapabilityID, claims.Expiry.Time())
	return WireCapability(token, &claims, names), nil
}

// Issuance for targets that have no resources to name, or no way to
// resolve them. A grant marked whole_agent designates the target as a
// whole: its capabilities carry no handles, so issuing one resolves
// nothing. Any other grant needs the target's resources; a target that
// cannot resolve them gets a documented grant_denied (detail
// no_resolver), not an internal error.

// wholeTarget reports whether grant is one of t's whole-target grants.
func wholeTarget(t Target, grant string) bool {
	g, ok := t.Grant(grant)
	return ok && g.WholeAgent
}

// wholeTargetAllowed refuses a whole-target capability that would be
// wider than what was asked or allowed: a request that named resources,
// or a policy rule that constrains them (a capability naming no resources
// cannot honour a constraint on them).
func wholeTargetAllowed(in policy.Input, gd policy.GrantDecision, rev string) *jsonrpc.Error {
	data := map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev}
	if q := in.Resource; q != nil && (q.Collection != "" || len(q.Filter) > 0) {
		return CapErr(jsonrpc.CodeGrantDenied, "grant denied: "+gd.Grant+" covers the agent as a whole and takes no resourceQuery", data)
	}
	if !gd.Resource.IsZero() || len(gd.Excluded) > 0 {
		return CapErr(jsonrpc.CodeGrantDenied, "grant denied: the policy constrains the resources of "+gd.Grant+", which names none", data)
	}
	return nil
}

// resolveFor resolves the request's resources when a granted grant needs
// them; a decision of whole-target grants only resolves nothing.
func (is *Issuer) resolveFor(ctx context.Context, t Target, q *policy.ResourceQuery, d policy.Decision) ([]policy.Resource, *jsonrpc.Error) {
	need := false
	for _, gd := range d.Grants {
		need = need || !wholeTarget(t, gd.Grant)
	}
	if !need {
		return nil, nil
	}
	if q == nil {
		q = &policy.ResourceQuery{}
	}
	found, err := t.Resolve(ctx, q)
	switch {
	case errors.Is(err, ErrNoResolver):
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: "+err.Error(), map[string]any{"detail": "no_resolver"})
	case err != nil:
		is.deps.Logger.WarnContext(ctx, "resource resolution failed", "agent", t.Name(), "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent could not resolve the resource query",
			Data: map[string]string{"reason": "resolution_failed"}}
	}
	return found, nil
}

// auditIssue records one issuance decision.
func (is *Issuer) auditIssue(ctx context.Context, a asked, d policy.Decision, caps []sep.Capability, decision string) {
	ids := make([]string, 0, len(caps))
	for _, cp := range caps {
		ids = append(ids, cp.ID)
	}
	rules := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		rules = append(rules, m.ID)
	}
	is.deps.Audit(ctx, EventIssue,
		slog.String("principal", a.caller.ID), slog.String("agent", a.target.Name()),
		slog.Any("grants", a.params.Grants), slog.String("purpose", a.params.Purpose),
		requestAttr(is.policyInput(a, time.Time{}), is.deps.Policy.Current(), a.params.ApprovalID),
		slog.String("policy_revision", d.Revision), slog.Any("rules", rules),
		slog.Any("capability_ids", ids), slog.String("decision", decision))
}
