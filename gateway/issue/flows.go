package issue

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/revocation"
)

// The flows a front answers whole on the capability a caller presents:
// attenuation and revocation. The front reads its wire into the SEP's
// params and passes the token of its header; the Issuer checks, mints or
// revokes, and audits.

// PresentedToken is the token the caller sent with a call, in params or
// in a header; both may be sent only when they agree.
func PresentedToken(header, fromParams string) (string, *jsonrpc.Error) {
	h := strings.TrimSpace(header)
	switch {
	case fromParams == "":
		return h, nil
	case h != "" && h != fromParams:
		return "", CapErr(jsonrpc.CodeCapabilityInvalid,
			"the capability token in the A2A-Capability header differs from the one in params", nil)
	}
	return fromParams, nil
}

// Attenuation answers a2a/capabilities/attenuate at target: the holder
// gets a new, narrower capability. Attenuation only narrows (operations
// and handles are subsets, the expiry only moves earlier, the depth grows
// up to the cap); a widening attempt or a non-attenuable grant is
// attenuation_not_permitted. The child's revocation ids include every
// ancestor's, so revoking any of them kills it.
func (is *Issuer) Attenuation(ctx context.Context, checks *enforce.Checker, caller *authn.Principal, target string, p sep.AttenuateParams, header string) (sep.CapabilitiesResult, *jsonrpc.Error) {
	token, e := PresentedToken(header, p.CapabilityToken)
	if e == nil {
		e = is.Limit(ctx, caller.ID, target, ratelimit.Attenuate, 1)
	}
	var parent *captoken.Claims
	var rec *capindex.Record
	if e == nil {
		var r *enforce.Refusal
		parent, rec, r = checks.Usable(ctx, caller.ID, target, p.CapabilityID, token)
		e = WireError(r)
	}
	if e != nil {
		is.auditAttenuate(ctx, caller.ID, target, parent, nil, ReasonOf(e))
		return sep.CapabilitiesResult{}, e
	}
	child, childClaims, e := is.Attenuate(ctx, parent, rec, p.Constraints, caller.ID)
	if e != nil {
		is.auditAttenuate(ctx, caller.ID, target, parent, nil, ReasonOf(e))
		return sep.CapabilitiesResult{}, e
	}
	is.RecordLive(ctx, caller.ID, target, childClaims.CapabilityID, childClaims.Expiry.Time())
	is.auditAttenuate(ctx, caller.ID, target, parent, childClaims, "attenuated")
	return sep.CapabilitiesResult{Capabilities: []sep.Capability{child}}, nil
}

func (is *Issuer) auditAttenuate(ctx context.Context, caller, target string, parent, child *captoken.Claims, decision string) {
	attrs := []slog.Attr{slog.String("caller", caller), slog.String("agent", target), slog.String("decision", decision)}
	if parent != nil {
		attrs = append(attrs, slog.String("parent_capability_id", parent.CapabilityID))
	}
	attrs = append(attrs, ClaimAttrs(child)...)
	is.deps.Audit(ctx, EventAttenuate, attrs...)
}

// Revocation answers a2a/capabilities/revoke at target: the holder (or
// the principal it acts for) revokes a capability, and every descendant
// dies with it. The revocation id is kept until the capability would have
// expired, which bounds every descendant's expiry too.
func (is *Issuer) Revocation(ctx context.Context, checks *enforce.Checker, caller *authn.Principal, target string, p sep.RevokeParams, header string) (sep.RevokeResult, *jsonrpc.Error) {
	token, e := PresentedToken(header, p.CapabilityToken)
	var claims *captoken.Claims
	if e == nil {
		var r *enforce.Refusal
		claims, _, r = checks.Load(ctx, target, p.CapabilityID, token)
		e = WireError(r)
	}
	if e == nil {
		e = CheckRevoker(claims, caller.ID)
	}
	if e != nil {
		is.auditRevoke(ctx, caller.ID, target, claims, ReasonOf(e))
		return sep.RevokeResult{}, e
	}
	until := claims.Expiry.Time().Add(time.Minute)
	if err := is.deps.Revocations.Revoke(ctx, claims.RevocationID, until); err != nil {
		return sep.RevokeResult{}, is.revokeFailed(ctx, caller.ID, target, claims, err)
	}
	is.auditRevoke(ctx, caller.ID, target, claims, "revoked")
	return sep.RevokeResult{Revoked: true, CapabilityID: claims.CapabilityID, RevocationID: claims.RevocationID}, nil
}

// CheckRevoker refuses a caller that is neither the capability's holder
// nor the principal it acts for.
func CheckRevoker(c *captoken.Claims, caller string) *jsonrpc.Error {
	if c.Holder != caller && c.Principal != caller {
		return CapErr(jsonrpc.CodeHolderMismatch, "only the holder or its principal may revoke a capability", nil)
	}
	return nil
}

// ReasonRevokedUnconfirmed is the audited decision, and the refusal's
// data.detail, of a revocation that was stored but whose call ended
// before every replica confirmed it.
const ReasonRevokedUnconfirmed = "revoked_unconfirmed"

// revokeFailed answers a revocation the store did not complete. Either
// nothing was stored (the capability is NOT revoked: retry), or it was
// stored and published but the call ended before every replica confirmed
// it (revocation.ErrUnconfirmed): the capability is revoked, in effect on
// every replica within the store's staleness bound, and a retry waits for
// the confirmation again. Both are errors to the caller, who cannot rely
// on "revoked everywhere" yet; the audit trail says which.
func (is *Issuer) revokeFailed(ctx context.Context, caller, target string, claims *captoken.Claims, err error) *jsonrpc.Error {
	if errors.Is(err, revocation.ErrUnconfirmed) {
		is.deps.Logger.WarnContext(ctx, "revocation stored, replicas' confirmation not awaited", "error", err)
		is.auditRevoke(ctx, caller, target, claims, ReasonRevokedUnconfirmed)
		return CapErr(jsonrpc.CodeRevocationUnavailable, "the capability is revoked, but the call ended before "+
			"every replica confirmed it; it is refused everywhere within the staleness bound; retry to confirm",
			map[string]any{"detail": ReasonRevokedUnconfirmed})
	}
	is.deps.Logger.ErrorContext(ctx, "revocation failed", "error", err)
	is.auditRevoke(ctx, caller, target, claims, jsonrpc.ReasonRevocationUnavailable)
	return StoreDown(enforce.RevocationStore, "the capability was NOT revoked")
}

func (is *Issuer) auditRevoke(ctx context.Context, caller, target string, claims *captoken.Claims, decision string) {
	attrs := append([]slog.Attr{
		slog.String("caller", caller), slog.String("agent", target), slog.String("decision", decision),
	}, ClaimAttrs(claims)...)
	is.deps.Audit(ctx, EventRevoke, attrs...)
}
