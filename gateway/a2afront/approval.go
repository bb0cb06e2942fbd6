package a2afront

import (
	"context"
	"errors"
	"slices"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// holdForApproval records a request the policy lets through only with a
// human's approval, holding exactly what would be issued now, and answers
// a PendingResult carrying its id. Nothing is minted.
func (f *Front) holdForApproval(ctx context.Context, c *call, p sep.RequestParams, in policy.Input, d policy.Decision, found []policy.Resource) outcome {
	if f.deps.Approvals == nil {
		f.auditIssue(ctx, c, p, d, nil, "approval_unavailable")
		return fail(c.req.ID, capErr(jsonrpc.CodeGrantDenied, "grant denied: it needs human approval and this gateway has no approval store",
			map[string]any{"policyRevision": d.Revision}))
	}
	req := approval.Request{Principal: c.principal.ID, Agent: c.agent.cfg.Name, Purpose: in.Purpose,
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
			f.auditIssue(ctx, c, p, d, nil, "grant_denied")
			return fail(c.req.ID, capErr(jsonrpc.CodeGrantDenied, "grant denied: no resource matches the query within policy",
				map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": d.Revision}))
		}
		if gd.Approval != nil {
			g.Approvers = &gd.Approval.Approvers
			if req.Wait == 0 || gd.Approval.Wait < req.Wait {
				req.Wait = gd.Approval.Wait
			}
		}
		req.Grants = append(req.Grants, g)
	}
	r, err := f.deps.Approvals.Create(ctx, req)
	if le, ok := errors.AsType[*approval.PendingLimitError](err); ok {
		f.auditIssue(ctx, c, p, d, nil, "rate_limited")
		return fail(c.req.ID, capErr(jsonrpc.CodeRateLimited, "rate limited: too many pending approval requests; wait for a decision",
			map[string]any{"limit": "pending_approvals", "max": le.Limit}))
	}
	if err != nil {
		f.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
		f.auditIssue(ctx, c, p, d, nil, "approval_unavailable")
		return fail(c.req.ID, storeDown(enforce.ApprovalStore, ""))
	}
	f.auditIssue(ctx, c, p, d, nil, "approval_pending")
	return answered(jsonrpc.NewResult(c.req.ID, pending(r)))
}

func pending(r approval.Request) sep.PendingResult {
	return sep.PendingResult{Status: sep.StatusPending, ApprovalID: r.ID, Expires: r.Deadline, PolicyRevision: r.PolicyRevision}
}

// redeemApproval answers a request naming an approvalId: the approved
// capabilities (once), the pending answer again, or why not. What is
// issued is what was approved, narrowed by the policy in force now.
func (f *Front) redeemApproval(ctx context.Context, c *call, p sep.RequestParams) outcome {
	if f.deps.Approvals == nil {
		return fail(c.req.ID, invalidMember("params.approvalId", "unknown approvalId", nil))
	}
	// An approval is redeemed by who asked, where it was asked: the store
	// checks both as it marks the approval used.
	r, err := f.deps.Approvals.Redeem(ctx, p.ApprovalID, c.principal.ID, c.agent.cfg.Name)
	if err != nil {
		return f.unredeemed(ctx, c, r, err)
	}
	now := f.deps.Now()
	in := policy.Input{Principal: toPolicyPrincipal(c.principal), Agent: r.Agent, Purpose: r.Purpose,
		Resource: r.Query, MaxTTL: f.cfg.MaxTTL, Now: now}
	for _, g := range r.Grants {
		in.Grants = append(in.Grants, g.Grant)
	}
	d := f.deps.Policy.Current().Decide(ctx, in)
	ap := sep.RequestParams{Grants: in.Grants, Purpose: r.Purpose, ApprovalID: r.ID}
	still := f.stillApproved(r, d)
	exact := make([]policy.GrantDecision, 0, len(still))
	for _, ag := range still {
		if gd, ok := approvedExactly(c.agent, in, ag.approved, ag.now); ok {
			exact = append(exact, gd)
		}
	}
	if len(exact) != len(r.Grants) {
		f.auditIssue(ctx, c, ap, d, nil, "grant_denied")
		return fail(c.req.ID, capErr(jsonrpc.CodeGrantDenied, "grant denied: the policy in force no longer allows what was approved",
			map[string]any{"approvalId": r.ID, "actionHash": r.ActionHash, "reasons": d.Reasons, "policyRevision": d.Revision}))
	}
	caps := make([]sep.Capability, 0, len(exact))
	for i, gd := range exact {
		capb, e := f.issue(ctx, c, in, still[i].approved.Resources, gd, d.Revision)
		if e != nil {
			f.auditIssue(ctx, c, ap, d, nil, reasonOf(e))
			return fail(c.req.ID, e)
		}
		caps = append(caps, capb)
	}
	f.auditIssue(ctx, c, ap, d, caps, "issued")
	return answered(jsonrpc.NewResult(c.req.ID, sep.CapabilitiesResult{Capabilities: caps, PolicyRevision: d.Revision}))
}

// unredeemed answers a redemption that did not succeed.
func (f *Front) unredeemed(ctx context.Context, c *call, r approval.Request, err error) outcome {
	id := c.req.ID
	data := map[string]any{"approvalId": r.ID}
	switch {
	case errors.Is(err, approval.ErrPending):
		return answered(jsonrpc.NewResult(id, pending(r)))
	case errors.Is(err, approval.ErrDenied):
		data["deniedBy"], data["approverReason"] = r.DecidedBy, r.Reason
		return fail(id, capErr(jsonrpc.CodeGrantDenied, "grant denied by an approver: "+r.Reason, data))
	case errors.Is(err, approval.ErrExpired):
		return fail(id, capErr(jsonrpc.CodeGrantDenied, "grant denied: the approval request expired", data))
	case errors.Is(err, approval.ErrRedeemed):
		return fail(id, capErr(jsonrpc.CodeGrantDenied, "grant denied: the approval was already used", data))
	case errors.Is(err, approval.ErrNotFound):
		return fail(id, invalidMember("params.approvalId", "unknown approvalId", nil))
	case errors.Is(err, approval.ErrActionChanged):
		f.deps.Logger.WarnContext(ctx, "approval request no longer matches its action hash", "error", err)
		return fail(id, capErr(jsonrpc.CodeGrantDenied, "grant denied: the approval request no longer holds what was approved; ask again", data))
	}
	f.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
	return fail(id, storeDown(enforce.ApprovalStore, ""))
}

// approvedGrant pairs what was approved with what the policy allows now.
type approvedGrant struct {
	approved approval.Grant
	now      policy.GrantDecision
}

// stillApproved keeps the approved grants that the current decision still
// issues, dropping, until nothing changes, those whose required grants are
// gone.
func (f *Front) stillApproved(r approval.Request, d policy.Decision) []approvedGrant {
	var out []approvedGrant
	for _, ag := range r.Grants {
		if i := slices.IndexFunc(d.Grants, func(gd policy.GrantDecision) bool { return gd.Grant == ag.Grant }); i >= 0 {
			out = append(out, approvedGrant{approved: ag, now: d.Grants[i]})
		}
	}
	a := f.agents[r.Agent]
	if a == nil {
		return nil
	}
	for changed := true; changed; {
		changed = false
		for i, g := range out {
			if slices.ContainsFunc(a.requires(g.approved.Grant), func(req string) bool {
				return !slices.ContainsFunc(out, func(o approvedGrant) bool { return o.approved.Grant == req })
			}) {
				out, changed = slices.Delete(out, i, i+1), true
				break
			}
		}
	}
	return out
}

// requires returns the grants that grant g of the agent requires.
func (a *agent) requires(g string) []string {
	for _, gr := range a.cfg.Grants {
		if gr.ID == g {
			return gr.Requires
		}
	}
	return nil
}

// approvedExactly returns the grant decision that issues exactly what
// was approved (its operations, resources, lifetime from now, depth and
// attenuability), and whether the grant the policy allows now covers all
// of it. Anything less is not what the approver saw: nothing is issued.
func approvedExactly(a *agent, in policy.Input, ag approval.Grant, gd policy.GrantDecision) (policy.GrantDecision, bool) {
	exp := in.Now.Add(ag.TTL)
	ok := !exp.After(gd.Expires) && ag.MaxDepth <= gd.MaxDepth && (!ag.Attenuable || gd.Attenuable) &&
		!slices.ContainsFunc(ag.Operations, func(op string) bool { return !slices.Contains(gd.Operations, op) })
	if !a.wholeAgent(ag.Grant) {
		ok = ok && len(ag.Resources) > 0 && !slices.ContainsFunc(ag.Resources, func(r policy.Resource) bool {
			return !in.Resource.Matches(r) || !gd.Permits(r)
		})
	}
	gd.Operations, gd.Expires, gd.MaxDepth, gd.Attenuable = ag.Operations, exp, ag.MaxDepth, ag.Attenuable
	return gd, ok
}

// approvalStatus is a2a/capabilities/approval/status: where the caller's
// own request waiting for human approval stands, as of now. It only reads:
// nothing is minted, redeemed or forwarded, and no transition is made (a
// request past its deadline reads as expired). A request of another
// principal, or asked at another agent, is answered exactly like an id
// that does not exist.
func (f *Front) approvalStatus(ctx context.Context, c *call) outcome {
	var p sep.ApprovalStatusParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	if p.ApprovalID == "" {
		return fail(c.req.ID, invalidMember("params.approvalId", "approvalId is required", nil))
	}
	unknown := fail(c.req.ID, invalidMember("params.approvalId", "unknown approvalId", nil))
	if f.deps.Approvals == nil {
		return unknown
	}
	r, err := f.deps.Approvals.Get(ctx, p.ApprovalID)
	switch {
	case errors.Is(err, approval.ErrNotFound):
		return unknown
	case err != nil:
		f.deps.Logger.ErrorContext(ctx, "approval store unavailable", "error", err)
		return fail(c.req.ID, storeDown(enforce.ApprovalStore, ""))
	case r.Principal != c.principal.ID || r.Agent != c.agent.cfg.Name:
		return unknown
	}
	return answered(jsonrpc.NewResult(c.req.ID, statusOf(r)))
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
