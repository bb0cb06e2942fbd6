package a2afront

import (
	"context"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
)

// approvalStatus is a2a/capabilities/approval/status: where the caller's
// own request waiting for human approval stands, as of now
// (issue.Issuer.ApprovalStatus). It only reads; a request of another
// principal, or asked at another agent, is answered exactly like an id
// that does not exist.
func (f *Front) approvalStatus(ctx context.Context, c *call) outcome {
	var p sep.ApprovalStatusParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	res, e := f.issuer().ApprovalStatus(ctx, c.principal, c.agent.cfg.Name, p)
	if e != nil {
		return fail(c.req.ID, e)
	}
	return answered(jsonrpc.NewResult(c.req.ID, res))
}
