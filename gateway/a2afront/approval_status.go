package a2afront

import (
	"context"
	"errors"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

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
