package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// capabilitiesAttenuate is a2a/capabilities/attenuate: the holder gets a
// new, narrower capability. Attenuation only narrows (operations and
// handles are subsets, the expiry only moves earlier, the depth grows up
// to the cap); a widening attempt or a non-attenuable grant is
// attenuation_not_permitted. The child's revocation ids include every
// ancestor's, so revoking any of them kills it.
func (g *Gateway) capabilitiesAttenuate(ctx context.Context, c *call) outcome {
	var p attenuateParams
	if err := jsonrpc.UnmarshalParams(c.req.Params, &p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	token := presentedToken(c.http, p.CapabilityToken)
	parent, rec, e := g.usable(ctx, c, p.CapabilityID, token)
	if e != nil {
		g.auditAttenuate(ctx, c, parent, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	child, childClaims, e := g.attenuate(ctx, parent, rec, p.Constraints, c.principal.ID)
	if e != nil {
		g.auditAttenuate(ctx, c, parent, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	g.auditAttenuate(ctx, c, parent, childClaims, "attenuated")
	return answer(jsonrpc.NewResult(c.req.ID, capabilitiesResult{Capabilities: []capability{child}}))
}

// attenuate mints a child of a verified, live parent, held by holder, and
// indexes it.
func (g *Gateway) attenuate(ctx context.Context, parent *captoken.Claims, rec *capindex.Record, cons constraints, holder string) (capability, *captoken.Claims, *jsonrpc.Error) {
	cc := captoken.Constraints{Operations: cons.Operations, Handles: cons.ResourceHandles}
	if cons.Expires != nil {
		cc.Expires = *cons.Expires
	}
	token, child, err := captoken.Attenuate(g.caps.Keys, g.caps.Verifier, parent, cc, captoken.AttenuateOptions{
		Holder: holder, Now: g.now(),
	})
	switch {
	case errors.Is(err, captoken.ErrAttenuationDenied):
		return capability{}, nil, capErr(jsonrpc.CodeAttenuationNotPermitted, "attenuation not permitted: "+err.Error(), nil)
	case errors.Is(err, captoken.ErrExpired):
		return capability{}, nil, verifyErr(err)
	case err != nil:
		g.logger.ErrorContext(ctx, "attenuation failed", "error", err)
		return capability{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	names := g.displayNames(ctx, parent, rec)
	childNames := map[string]string{}
	for _, h := range child.Handles {
		childNames[h] = names[h]
	}
	if err := g.caps.Index.Put(ctx, indexRecord(token, child, childNames)); err != nil {
		g.logger.ErrorContext(ctx, "capability index unavailable", "error", err)
		return capability{}, nil, capErr(jsonrpc.CodeRevocationUnavailable, "capability store unavailable; try again", nil)
	}
	return wireCapability(token, child, childNames), child, nil
}

// displayNames returns the handle display names of a capability, from its
// index record when the caller had it, else by looking it up.
func (g *Gateway) displayNames(ctx context.Context, c *captoken.Claims, rec *capindex.Record) map[string]string {
	if rec != nil {
		return rec.DisplayNames
	}
	if r, err := g.caps.Index.Get(ctx, c.CapabilityID); err == nil {
		return r.DisplayNames
	}
	return map[string]string{}
}

// capabilitiesRevoke is a2a/capabilities/revoke: the holder (or the
// principal it acts for) revokes a capability, and every descendant dies
// with it. The revocation id is kept until the capability would have
// expired, which bounds every descendant's expiry too.
func (g *Gateway) capabilitiesRevoke(ctx context.Context, c *call) outcome {
	var p revokeParams
	if err := jsonrpc.UnmarshalParams(c.req.Params, &p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	claims, _, e := g.loadCapability(ctx, c.agent.cfg.Name, p.CapabilityID, presentedToken(c.http, p.CapabilityToken))
	if e == nil && claims.Holder != c.principal.ID && claims.Principal != c.principal.ID {
		e = capErr(jsonrpc.CodeHolderMismatch, "only the holder or its principal may revoke a capability", nil)
	}
	if e != nil {
		g.auditRevoke(ctx, c, claims, reasonOf(e))
		return fail(c.req.ID, e)
	}
	until := claims.Expiry.Time().Add(time.Minute)
	if err := g.caps.Revocations.Revoke(ctx, claims.RevocationID, until); err != nil {
		g.logger.ErrorContext(ctx, "revocation failed", "error", err)
		g.auditRevoke(ctx, c, claims, jsonrpc.ReasonRevocationUnavailable)
		return fail(c.req.ID, capErr(jsonrpc.CodeRevocationUnavailable, "revocation store unavailable; the capability was NOT revoked", nil))
	}
	g.auditRevoke(ctx, c, claims, "revoked")
	return answer(jsonrpc.NewResult(c.req.ID, map[string]any{
		"revoked": true, "capabilityId": claims.CapabilityID, "revocationId": claims.RevocationID,
	}))
}
