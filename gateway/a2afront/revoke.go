package a2afront

import (
	"context"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/sep"
)

// capabilitiesRevoke is a2a/capabilities/revoke: the holder (or the
// principal it acts for) revokes a capability, and every descendant dies
// with it (issue.Issuer.Revocation).
func (f *Front) capabilitiesRevoke(ctx context.Context, c *call) outcome {
	var p sep.RevokeParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	res, e := f.issuer().Revocation(ctx, f.checks, c.principal, c.agent.cfg.Name, p, c.http.Header.Get(proxy.HeaderCapabilityToken))
	if e != nil {
		return fail(c.req.ID, e)
	}
	return answered(jsonrpc.NewResult(c.req.ID, res))
}

// checkRevoker refuses a caller that is neither the capability's holder
// nor the principal it acts for.
func checkRevoker(c *captoken.Claims, caller string) *jsonrpc.Error {
	return issue.CheckRevoker(c, caller)
}

// reasonRevokedUnconfirmed is the detail of a revocation stored but not
// confirmed by every replica.
const reasonRevokedUnconfirmed = issue.ReasonRevokedUnconfirmed
