package issue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
)

// Attenuate mints a child of a verified, live parent, held by holder,
// narrowed to cons, and indexes it. rec is the index record parent was
// verified from, when the caller had one; it gives the handles' display
// names.
func (is *Issuer) Attenuate(ctx context.Context, parent *captoken.Claims, rec *capindex.Record, cons sep.Constraints, holder string) (sep.Capability, *captoken.Claims, *jsonrpc.Error) {
	if e := is.frozen(ctx, "", holder); e != nil {
		return sep.Capability{}, nil, e
	}
	cc := captoken.Constraints{Operations: cons.Operations, Handles: cons.ResourceHandles}
	if cons.Expires != nil {
		cc.Expires = *cons.Expires
	}
	token, child, err := captoken.Attenuate(is.deps.Keys, is.deps.Verifier, parent, cc, captoken.AttenuateOptions{
		Holder: holder, Now: is.deps.Now(),
	})
	switch {
	case errors.Is(err, captoken.ErrAttenuationDenied):
		return sep.Capability{}, nil, CapErr(jsonrpc.CodeAttenuationNotPermitted, "attenuation not permitted: "+err.Error(), nil)
	case errors.Is(err, captoken.ErrExpired):
		return sep.Capability{}, nil, CapErr(jsonrpc.CodeCapabilityExpired, "capability expired or not yet valid", nil)
	case err != nil:
		is.deps.Logger.ErrorContext(ctx, "attenuation failed", "error", err)
		return sep.Capability{}, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	names := is.DisplayNames(ctx, parent, rec)
	childNames := map[string]string{}
	for _, h := range child.Handles {
		childNames[h] = names[h]
	}
	if err := is.Index(ctx, token, child, childNames); err != nil {
		return sep.Capability{}, nil, is.IndexError(ctx, err)
	}
	return WireCapability(token, child, childNames), child, nil
}

// DisplayNames returns the handle display names of a capability: from
// rec when the caller had one, else from c's own record in the index
// (ownRecord). A record lists the names in the order of its token's
// handles.
func (is *Issuer) DisplayNames(ctx context.Context, c *captoken.Claims, rec *capindex.Record) map[string]string {
	if rec == nil {
		rec = is.ownRecord(ctx, c)
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
func (is *Issuer) ownRecord(ctx context.Context, c *captoken.Claims) *capindex.Record {
	r, err := is.deps.Index.Get(ctx, c.CapabilityID)
	if err != nil {
		return nil
	}
	rc, err := is.deps.Verifier.VerifyPacked(ctx, r.Token, captoken.Expected{})
	if err != nil || rc.CapabilityID != c.CapabilityID || !slices.Equal(rc.Handles, c.Handles) {
		return nil
	}
	return &r
}

// WireCapability renders claims and their token in the issuance shape.
func WireCapability(token string, c *captoken.Claims, names map[string]string) sep.Capability {
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
var errUnpackable = errors.New("issue: issued token cannot be packed")

// IndexError answers an issued capability the index did not take: a
// store failure is worth a retry, an unpackable token is not.
func (is *Issuer) IndexError(ctx context.Context, err error) *jsonrpc.Error {
	if errors.Is(err, errUnpackable) {
		is.deps.Logger.ErrorContext(ctx, "issued capability cannot be indexed", "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "internal error"}
	}
	is.deps.Logger.ErrorContext(ctx, "capability index unavailable", "error", err)
	return StoreDown(enforce.CapabilityIndex, "")
}

// Index puts an issued capability in the index: its token in binary and
// the display names of its handles, in the token's order.
func (is *Issuer) Index(ctx context.Context, token string, c *captoken.Claims, names map[string]string) error {
	tok, err := captoken.Pack(token)
	if err != nil {
		return fmt.Errorf("%w: %w", errUnpackable, err)
	}
	dn := make([]string, 0, len(c.Handles))
	for _, h := range c.Handles {
		dn = append(dn, names[h])
	}
	return is.deps.Index.Put(ctx, capindex.Record{
		CapabilityID: c.CapabilityID, Token: tok, Principal: c.Principal, Holder: c.Holder,
		Agent: c.Audience, Grant: c.Grant, ParentID: c.ParentCapabilityID, DisplayNames: dn,
		IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time(),
	})
}

// Limit spends n events of limit from the principal's budget at target
// and, for the limits that mint capabilities, checks its live-capability
// cap. It returns the refusal to answer, or nil. A nil limiter allows
// all.
func (is *Issuer) Limit(ctx context.Context, principal, target string, limit ratelimit.Limit, n int) *jsonrpc.Error {
	err := is.deps.Limits.Allow(ctx, limit, principal, target, n)
	if err == nil && limit != ratelimit.Invoke {
		err = is.deps.Limits.AdmitLive(ctx, principal, target)
	}
	return LimitError(err)
}

// RecordLive counts a capability minted at the principal's request
// against its live cap. Not counting it only loosens the cap, so a
// failure is logged and counted by the limiter and does not undo the
// issuance.
func (is *Issuer) RecordLive(ctx context.Context, principal, target, id string, expires time.Time) {
	_ = is.deps.Limits.RecordLive(ctx, principal, target, id, expires)
}

// ClaimAttrs are the audit attributes of a capability: who holds it for
// whom, its grant, operations and handles, and its place in a chain
// (capability and parent ids, depth).
func ClaimAttrs(c *captoken.Claims) []slog.Attr {
	if c == nil {
		return nil
	}
	return []slog.Attr{
		slog.String("capability_id", c.CapabilityID), slog.String("parent_id", c.ParentCapabilityID),
		slog.String("principal", c.Principal), slog.String("holder", c.Holder),
		slog.String("grant", c.Grant), slog.Any("operations", c.Operations),
		slog.Any("handles", c.Handles), slog.Int("depth", c.Depth),
		slog.String("purpose", c.Purpose), slog.String("policy_revision", c.PolicyRevision),
		slog.Any("revocation_ids", c.RevocationIDs()),
	}
}
