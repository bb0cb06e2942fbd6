package a2afront

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
)

// capabilitiesAttenuate is a2a/capabilities/attenuate: the holder gets a
// new, narrower capability. Attenuation only narrows (operations and
// handles are subsets, the expiry only moves earlier, the depth grows up
// to the cap); a widening attempt or a non-attenuable grant is
// attenuation_not_permitted. The child's revocation ids include every
// ancestor's, so revoking any of them kills it.
func (f *Front) capabilitiesAttenuate(ctx context.Context, c *call) outcome {
	var p sep.AttenuateParams
	if err := c.req.UnmarshalParams(&p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	token, e := presentedToken(c.http, p.CapabilityToken)
	if e == nil {
		e = f.limit(ctx, c, ratelimit.Attenuate, 1)
	}
	var parent *captoken.Claims
	var rec *capindex.Record
	if e == nil {
		parent, rec, e = f.usable(ctx, c.principal, c.agent.cfg.Name, p.CapabilityID, token)
	}
	if e != nil {
		f.auditAttenuate(ctx, c, parent, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	child, childClaims, e := f.attenuate(ctx, parent, rec, p.Constraints, c.principal.ID)
	if e != nil {
		f.auditAttenuate(ctx, c, parent, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	f.recordLive(ctx, c, childClaims.CapabilityID, childClaims.Expiry.Time())
	f.auditAttenuate(ctx, c, parent, childClaims, "attenuated")
	return answered(jsonrpc.NewResult(c.req.ID, sep.CapabilitiesResult{Capabilities: []sep.Capability{child}}))
}

// attenuate mints a child of a verified, live parent, held by holder, and
// indexes it.
func (f *Front) attenuate(ctx context.Context, parent *captoken.Claims, rec *capindex.Record, cons sep.Constraints, holder string) (sep.Capability, *captoken.Claims, *jsonrpc.Error) {
	if e := f.frozen(ctx, "", holder); e != nil {
		return sep.Capability{}, nil, e
	}
	cc := captoken.Constraints{Operations: cons.Operations, Handles: cons.ResourceHandles}
	if cons.Expires != nil {
		cc.Expires = *cons.Expires
	}
	token, child, err := captoken.Attenuate(f.deps.Keys, f.deps.Verifier, parent, cc, captoken.AttenuateOptions{
		Holder: holder, Now: f.deps.Now(),
	})
	switch {
	case errors.Is(err, captoken.ErrAttenuationDenied):
		return sep.Capability{}, nil, capErr(jsonrpc.CodeAttenuationNotPermitted, "attenuation not permitted: "+err.Error(), nil)
	case errors.Is(err, captoken.ErrExpired):
		return sep.Capability{}, nil, capErr(jsonrpc.CodeCapabilityExpired, "capability expired or not yet valid", nil)
	case err != nil:
		f.deps.Logger.ErrorContext(ctx, "attenuation failed", "error", err)
		return sep.Capability{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	names := f.displayNames(ctx, parent, rec)
	childNames := map[string]string{}
	for _, h := range child.Handles {
		childNames[h] = names[h]
	}
	if err := f.index(ctx, token, child, childNames); err != nil {
		return sep.Capability{}, nil, f.indexError(ctx, err)
	}
	return wireCapability(token, child, childNames), child, nil
}

// displayNames returns the handle display names of a capability: from
// rec, the index record c was verified from when the caller had one, else
// from c's own record in the index (ownRecord). A record lists the names
// in the order of its token's handles.
func (f *Front) displayNames(ctx context.Context, c *captoken.Claims, rec *capindex.Record) map[string]string {
	if rec == nil {
		rec = f.ownRecord(ctx, c)
	}
	names := map[string]string{}
	if rec != nil {
		for i, h := range c.Handles[:min(len(c.Handles), len(rec.DisplayNames))] {
			names[h] = rec.DisplayNames[i]
		}
	}
	return names
}

// ownRecord looks up c's index record and returns it only when its token
// verifies as c's id with c's handles: names are matched to handles by
// position, so a record that is not c's (stale, or written by someone
// else) must name nothing. nil when there is none.
func (f *Front) ownRecord(ctx context.Context, c *captoken.Claims) *capindex.Record {
	r, err := f.deps.Index.Get(ctx, c.CapabilityID)
	if err != nil {
		return nil
	}
	rc, err := f.deps.Verifier.VerifyPacked(ctx, r.Token, captoken.Expected{})
	if err != nil || rc.CapabilityID != c.CapabilityID || !slices.Equal(rc.Handles, c.Handles) {
		return nil
	}
	return &r
}

// wireCapability renders claims and their token in the issuance shape.
func wireCapability(token string, c *captoken.Claims, names map[string]string) sep.Capability {
	hs := make([]sep.ResourceHandle, 0, len(c.Handles))
	for _, h := range c.Handles {
		hs = append(hs, sep.ResourceHandle{Handle: h, DisplayName: names[h]})
	}
	return sep.Capability{
		ID: c.CapabilityID, Grant: c.Grant, Token: token, ResourceHandles: hs,
		Operations: c.Operations, Expires: c.Expiry.Time().UTC(), RevocationID: c.RevocationID,
		Principal: c.Principal, Holder: c.Holder, ParentID: c.ParentCapabilityID, Depth: c.Depth,
	}
}

// errUnpackable means the gateway minted a token it cannot keep in binary:
// a fault of its own, which a retry does not mend.
var errUnpackable = errors.New("a2a front: issued token cannot be packed")

// indexError answers an issued capability the index did not take: a
// store failure is worth a retry, an unpackable token is not.
func (f *Front) indexError(ctx context.Context, err error) *jsonrpc.Error {
	if errors.Is(err, errUnpackable) {
		f.deps.Logger.ErrorContext(ctx, "issued capability cannot be indexed", "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	f.deps.Logger.ErrorContext(ctx, "capability index unavailable", "error", err)
	return storeDown(enforce.CapabilityIndex, "")
}

// index puts an issued capability in the index: its token in binary and
// the display names of its handles, in the token's order.
func (f *Front) index(ctx context.Context, token string, c *captoken.Claims, names map[string]string) error {
	tok, err := captoken.Pack(token)
	if err != nil {
		return fmt.Errorf("%w: %w", errUnpackable, err)
	}
	dn := make([]string, 0, len(c.Handles))
	for _, h := range c.Handles {
		dn = append(dn, names[h])
	}
	return f.deps.Index.Put(ctx, capindex.Record{
		CapabilityID: c.CapabilityID, Token: tok, Principal: c.Principal, Holder: c.Holder,
		Agent: c.Audience, Grant: c.Grant, ParentID: c.ParentCapabilityID, DisplayNames: dn,
		IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time(),
	})
}
