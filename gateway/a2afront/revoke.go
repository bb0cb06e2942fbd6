package a2afront

import (
	"context"
	"errors"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/revocation"
)

// capabilitiesRevoke is a2a/capabilities/revoke: the holder (or the
// principal it acts for) revokes a capability, and every descendant dies
// with it. The revocation id is kept until the capability would have
// expired, which bounds every descendant's expiry too.
func (f *Front) capabilitiesRevoke(ctx context.Context, c *call) outcome {
	var p sep.RevokeParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	token, e := presentedToken(c.http, p.CapabilityToken)
	var claims *captoken.Claims
	if e == nil {
		var r *enforce.Refusal
		claims, _, r = f.checks.Load(ctx, c.agent.cfg.Name, p.CapabilityID, token)
		e = wireError(r)
	}
	if e == nil {
		e = checkRevoker(claims, c.principal.ID)
	}
	if e != nil {
		f.auditRevoke(ctx, c, claims, reasonOf(e))
		return fail(c.req.ID, e)
	}
	until := claims.Expiry.Time().Add(time.Minute)
	if err := f.deps.Revocations.Revoke(ctx, claims.RevocationID, until); err != nil {
		return f.revokeFailed(ctx, c, claims, err)
	}
	f.auditRevoke(ctx, c, claims, "revoked")
	return answered(jsonrpc.NewResult(c.req.ID, sep.RevokeResult{
		Revoked: true, CapabilityID: claims.CapabilityID, RevocationID: claims.RevocationID,
	}))
}

// checkRevoker refuses a caller that is neither the capability's holder
// nor the principal it acts for.
func checkRevoker(c *captoken.Claims, caller string) *jsonrpc.Error {
	if c.Holder != caller && c.Principal != caller {
		return capErr(jsonrpc.CodeHolderMismatch, "only the holder or its principal may revoke a capability", nil)
	}
	return nil
}

// reasonRevokedUnconfirmed is the audited decision of a revocation that
// was stored but whose call ended before every replica confirmed it.
const reasonRevokedUnconfirmed = "revoked_unconfirmed"

// revokeFailed answers a revocation the store did not complete. Either
// nothing was stored (the capability is NOT revoked: retry), or it was
// stored and published but the call ended before every replica confirmed
// it (revocation.ErrUnconfirmed): the capability is revoked, in effect on
// every replica within the store's staleness bound, and a retry waits for
// the confirmation again. Both are errors to the caller, who cannot rely
// on "revoked everywhere" yet; the audit trail says which.
func (f *Front) revokeFailed(ctx context.Context, c *call, claims *captoken.Claims, err error) outcome {
	if errors.Is(err, revocation.ErrUnconfirmed) {
		f.deps.Logger.WarnContext(ctx, "revocation stored, replicas' confirmation not awaited", "error", err)
		f.auditRevoke(ctx, c, claims, reasonRevokedUnconfirmed)
		return fail(c.req.ID, capErr(jsonrpc.CodeRevocationUnavailable, "the capability is revoked, but the call ended before "+
			"every replica confirmed it; it is refused everywhere within the staleness bound; retry to confirm",
			map[string]any{"detail": reasonRevokedUnconfirmed}))
	}
	f.deps.Logger.ErrorContext(ctx, "revocation failed", "error", err)
	f.auditRevoke(ctx, c, claims, jsonrpc.ReasonRevocationUnavailable)
	return fail(c.req.ID, storeDown(enforce.RevocationStore, "the capability was NOT revoked"))
}
