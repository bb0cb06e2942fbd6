package issue

import (
	"context"
	"errors"
	"slices"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// hold records a request the policy lets through only with a human's
// approval, holding exactly what would be issued now, and answers a
// PendingResult carrying its id. Nothing is minted.
func (is *Issuer) hold(ctx context.Context, a asked, in policy.Input, d policy.Decision, found []policy.Resource) (any, *jsonrpc.Error) {
	if is.deps.Approvals == nil {
		is.auditIssue(ctx, a, d, nil, "approval_unavailable")
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: it needs human approval and this gateway has no approval store",
			map[string]any{"policyRevision": d.Revision})
	}
	req := approval.Request{Principal: a.caller.ID, Agent: a.target.Name(), Purpose: in.Purpose,
		Query: in.Resource, PolicyRevision: d.Revision}
	for _, gd := range d.Grants {
		g := approval.Grant{Grant: gd.Grant, Rule: gd.Rule, Operations: gd.Operations,
			TTL: gd.Expires.Sub(in.Now), MaxDepth: gd.MaxDepth, Attenuable: gd.Attenuable}
		for _, r := range found {
			if in.Resource.Matches(r) && gd.Permits(r) {
				g.Resources = append(g.Resources, r)
			}
		}
		if len(g.Resources) == 0 {
			is.auditIssue(ctx, a, d, nil, "grant_denied")
			return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: no resource matches the query within policy",
				map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": d.Revision})
		}
		if gd.Approval != nil {
			g.Approvers = &gd.Approval.Approvers
			if req.Wait == 0 || gd.Approval.Wait < req.Wait {
				req.Wait = gd.Approval.Wait
			}
		}
		req.Grants = append(req.Grants, g)
	}
	r, err := is.deps.Approvals.Create(ctx, req)
	if le, ok := errors.AsType[*approval.PendingLimitError](err); ok {
		is.auditIssue(ctx, a, d, nil, "rate_limited")
		return nil, CapErr(jsonrpc.CodeRateLimited, "rate limited: too many pending approval requests; wait for a decision",
			map[string]any{"limit": "pending_approvals", "max": le.Limit})
	}
	if err != nil {
		is.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
		is.auditIssue(ctx, a, d, nil, "approval_unavailable")
		return nil, StoreDown(enforce.ApprovalStore, "")
	}
	is.auditIssue(ctx, a, d, nil, "approval_pending")
	return pending(r), nil
}

func pending(r approval.Request) sep.PendingResult {
	return sep.PendingResult{Status: sep.StatusPending, ApprovalID: r.ID, Expires: r.Deadline, PolicyRevision: r.PolicyRevision}
}

// redeem answers a request naming an approvalId: the approved
// capabilities (once), the pending answer again, or why not. What is
// issued is what was approved, narrowed by the policy in force now.
func (is *Issuer) redeem(ctx context.Context, a asked) (any, *jsonrpc.Error) {
	if is.deps.Approvals == nil {
		return nil, InvalidMember("params.approvalId", "unknown approvalId", nil)
	}
	// An approval is redeemed by who asked, where it was asked: the store
	// checks both as it marks the approval used.
	r, err := is.deps.Approvals.Redeem(ctx, a.params.ApprovalID, a.caller.ID, a.target.Name())
	if err != nil {
		return is.unredeemed(ctx, r, err)
	}
	now := is.deps.Now()
	in := policy.Input{Principal: PolicyPrincipal(a.caller), Agent: r.Agent, Purpose: r.Purpose,
		Resource: r.Query, MaxTTL: is.cfg.MaxTTL, Now: now}
	for _, g := range r.Grants {
		in.Grants = append(in.Grants, g.Grant)
	}
	d := is.deps.Policy.Current().Decide(ctx, in)
	a.params = sep.RequestParams{Grants: in.Grants, Purpose: r.Purpose, ApprovalID: r.ID}
	still := stillApproved(a.target, r, d)
	exact := make([]policy.GrantDecision, 0, len(still))
	for _, ag := range still {
		if gd, ok := approvedExactly(a.target, in, ag.approved, ag.now); ok {
			exact = append(exact, gd)
		}
	}
	if len(exact) != len(r.Grants) {
		is.auditIssue(ctx, a, d, nil, "grant_denied")
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: the policy in force no longer allows what was approved",
			map[string]any{"approvalId": r.ID, "actionHash": r.ActionHash, "reasons": d.Reasons, "policyRevision": d.Revision})
	}
	return is.mintAll(ctx, a, in, d, exact, func(i int) []policy.Resource { return still[i].approved.Resources })
}

// unredeemed answers a redemption that did not succeed.
func (is *Issuer) unredeemed(ctx context.Context, r approval.Request, err error) (any, *jsonrpc.Error) {
	data := map[string]any{"approvalId": r.ID}
	switch {
	case errors.Is(err, approval.ErrPending):
		return pending(r), nil
	case errors.Is(err, approval.ErrDenied):
		data["deniedBy"], data["approverReason"] = r.DecidedBy, r.Reason
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied by an approver: "+r.Reason, data)
	case errors.Is(err, approval.ErrExpired):
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: the approval request expired", data)
	case errors.Is(err, approval.ErrRedeemed):
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: the approval was already used", data)
	case errors.Is(err, approval.ErrNotFound):
		return nil, InvalidMember("params.approvalId", "unknown approvalId", nil)
	case errors.Is(err, approval.ErrActionChanged):
		is.deps.Logger.WarnContext(ctx, "approval request no longer matches its action hash", "error", err)
		return nil, CapErr(jsonrpc.CodeGrantDenied, "grant denied: the approval request no longer holds what was approved; ask again", data)
	}
	is.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
	return nil, StoreDown(enforce.ApprovalStore, "")
}

// approvedGrant pairs what was approved with what the policy allows now.
type approvedGrant struct {
	approved approval.Grant
	now      policy.GrantDecision
}

// stillApproved keeps the approved grants that the current decision still
// issues, dropping, until nothing changes, those whose required grants are
// gone.
func stillApproved(t Target, r approval.Request, d policy.Decision) []approvedGrant {
	var out []approvedGrant
	for _, ag := range r.Grants {
		if i := slices.IndexFunc(d.Grants, func(gd policy.GrantDecision) bool { return gd.Grant == ag.Grant }); i >= 0 {
			out = append(out, approvedGrant{approved: ag, now: d.Grants[i]})
		}
	}
	requires := func(id string) []string {
		g, _ := t.Grant(id)
		return g.Requires
	}
	for changed := true; changed; {
		changed = false
		for i, g := range out {
			if slices.ContainsFunc(requires(g.approved.Grant), func(req string) bool {
				return !slices.ContainsFunc(out, func(o approvedGrant) bool { return o.approved.Grant == req })
			}) {
				out, changed = slices.Delete(out, i, i+1), true
				break
			}
		}
	}
	return out
}

// approvedExactly returns the grant decision that issues exactly what
// was approved (its operations, resources, lifetime from now, depth and
// attenuability), and whether the grant the policy allows now covers all
// of it. Anything less is not what the approver saw: nothing is issued.
func approvedExactly(t Target, in policy.Input, ag approval.Grant, gd policy.GrantDecision) (policy.GrantDecision, bool) {
	exp := in.Now.Add(ag.TTL)
	ok := !exp.After(gd.Expires) && ag.MaxDepth <= gd.MaxDepth && (!ag.Attenuable || gd.Attenuable) &&
		!slices.ContainsFunc(ag.Operations, func(op string) bool { return !slices.Contains(gd.Operations, op) })
	if !wholeTarget(t, ag.Grant) {
		ok = ok && len(ag.Resources) > 0 && !slices.ContainsFunc(ag.Resources, func(r policy.Resource) bool {
			return !in.Resource.Matches(r) || !gd.Permits(r)
		})
	}
	gd.Operations, gd.Expires, gd.MaxDepth, gd.Attenuable = ag.Operations, exp, ag.MaxDepth, ag.Attenuable
	return gd, ok
}

// ApprovalStatus answers a2a/capabilities/approval/status: where the
// caller's own request waiting for human approval stands, as of now. It
// only reads: nothing is minted, redeemed or forwarded, and no transition
// is made. A request of another principal, or asked at another target, is
// answered exactly like an id that does not exist.
func (is *Issuer) ApprovalStatus(ctx context.Context, caller *authn.Principal, target string, p sep.ApprovalStatusParams) (sep.ApprovalStatusResult, *jsonrpc.Error) {
	if p.ApprovalID == "" {
		return sep.ApprovalStatusResult{}, InvalidMember("params.approvalId", "approvalId is required", nil)
	}
	unknown := InvalidMember("params.approvalId", "unknown approvalId", nil)
	if is.deps.Approvals == nil {
		return sep.ApprovalStatusResult{}, unknown
	}
	r, err := is.deps.Approvals.Get(ctx, p.ApprovalID)
	switch {
	case errors.Is(err, approval.ErrNotFound):
		return sep.ApprovalStatusResult{}, unknown
	case err != nil:
		is.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
		return sep.ApprovalStatusResult{}, StoreDown(enforce.ApprovalStore, "")
	case r.Principal != caller.ID || r.Agent != target:
		return sep.ApprovalStatusResult{}, unknown
	}
	return statusOf(r), nil
}

// statusOf is the wire status of r: the approver's reason once a human
// decided it, never what it holds.
func statusOf(r approval.Request) sep.ApprovalStatusResult {
	res := sep.ApprovalStatusResult{Status: string(r.Status), ApprovalID: r.ID, Expires: r.Deadline}
	switch r.Status {
	case approval.StatusApproved, approval.StatusDenied, approval.StatusRedeemed:
		res.Reason = r.Reason
	}
	return res
}
