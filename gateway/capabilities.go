package gateway

import (
	"context"
	"errors"
	"log/slog"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// PolicySource yields the policy that decides one request. Callers take
// Current once per request, so that every request is decided against
// exactly one policy revision even while the file is reloaded.
type PolicySource interface {
	Current() *policy.Policy
}

// Capabilities are the gateway's capability dependencies: the key set that
// signs tokens, the verifier, the index of issued capabilities, the
// revocation store and the grant policy.
type Capabilities struct {
	Keys        *captoken.KeySet
	Verifier    *captoken.Verifier
	Index       capindex.Index
	Revocations revocation.Store
	Policy      PolicySource
	// Audit receives one structured event per issuance, attenuation,
	// invocation decision and revocation.
	Audit *slog.Logger
}

func (c *Capabilities) validate() error {
	if c == nil || c.Keys == nil || c.Verifier == nil || c.Index == nil || c.Revocations == nil || c.Policy == nil {
		return errors.New("gateway: capabilities need keys, verifier, index, revocation store and policy")
	}
	return nil
}

// capErr builds a capability error with its stable reason word.
func capErr(code int, msg string, data map[string]any) *jsonrpc.Error {
	if data == nil {
		data = map[string]any{}
	}
	data["reason"] = jsonrpc.NewCodeError(code, "").Reason()
	return &jsonrpc.Error{Code: code, Message: msg, Data: data}
}

// verifyErr maps a verification failure to its wire error: expired and
// not-yet-valid tokens are capability_expired, everything else invalid.
func verifyErr(err error) *jsonrpc.Error {
	if errors.Is(err, captoken.ErrExpired) || errors.Is(err, captoken.ErrNotYetValid) {
		return capErr(jsonrpc.CodeCapabilityExpired, "capability expired or not yet valid", nil)
	}
	return capErr(jsonrpc.CodeCapabilityInvalid, "capability invalid", nil)
}

// loadCapability finds the capability a call names and verifies it. A
// presented token is always verified, even when the id alone would
// resolve: a bad credential is never ignored. A token read from the index
// is verified like a presented one, because the index is not trusted with
// authority. The audience must be the agent the call is addressed to.
// An empty audience accepts any agent the gateway fronts.
func (g *Gateway) loadCapability(ctx context.Context, audience, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	var rec *capindex.Record
	if token == "" {
		if id == "" {
			return nil, nil, capErr(jsonrpc.CodeCapabilityRequired, "this call must name a capability (capabilityId)", nil)
		}
		r, err := g.caps.Index.Get(ctx, id)
		switch {
		case errors.Is(err, capindex.ErrNotFound):
			return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "unknown capability", nil)
		case err != nil:
			g.logger.ErrorContext(ctx, "capability index unavailable", "error", err)
			return nil, nil, capErr(jsonrpc.CodeRevocationUnavailable, "capability store unavailable", nil)
		}
		token, rec = r.Token, &r
	}
	_, span := g.span(ctx, "verify")
	claims, err := g.caps.Verifier.Verify(ctx, token, captoken.Expected{Audience: audience})
	if err != nil {
		e := verifyErr(err)
		endWith(span, e)
		return nil, nil, e
	}
	span.End()
	if _, ok := g.agents[claims.Audience]; !ok {
		return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "capability for an agent this gateway does not front", nil)
	}
	if id != "" && claims.CapabilityID != id {
		return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "capabilityId does not match the presented token", nil)
	}
	return claims, rec, nil
}

// checkLive fails closed: any error from the revocation store is
// revocation_unavailable, never "not revoked".
func (g *Gateway) checkLive(ctx context.Context, c *captoken.Claims) (e *jsonrpc.Error) {
	ctx, span := g.span(ctx, "revocation.check")
	defer func() { endWith(span, e) }()
	res, err := g.caps.Revocations.Check(ctx, revocation.Query{
		IDs: c.RevocationIDs(), Principal: c.Principal, IssuedAt: c.IssuedAt.Time(),
	})
	if err != nil {
		g.logger.WarnContext(ctx, "revocation check failed; refusing", "error", err)
		return capErr(jsonrpc.CodeRevocationUnavailable, "revocation state unavailable; try again", nil)
	}
	if res.Revoked {
		return capErr(jsonrpc.CodeCapabilityRevoked, "capability revoked", nil)
	}
	return nil
}

// checkHolder refuses a caller that is not the capability's holder.
func checkHolder(c *captoken.Claims, p *authn.Principal) *jsonrpc.Error {
	if c.Holder != p.ID {
		return capErr(jsonrpc.CodeHolderMismatch, "the caller is not the holder of this capability", nil)
	}
	return nil
}

// usable loads a capability and runs every check that does not depend on
// what the call wants to do with it: verification, holder and revocation
// (own id, every ancestor's, and the principal's cutoff). The holder is
// checked before the store, so a caller cannot probe the revocation state
// of capabilities it does not hold.
func (g *Gateway) usable(ctx context.Context, c *call, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	return g.usableAt(ctx, c, c.agent.cfg.Name, id, token)
}

// usableAt is usable for a capability whose audience may differ from the
// agent the call is addressed to (empty: any fronted agent), as in a
// delegated send.
func (g *Gateway) usableAt(ctx context.Context, c *call, audience, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	claims, rec, e := g.loadCapability(ctx, audience, id, token)
	if e != nil {
		return nil, nil, e
	}
	if e := checkHolder(claims, c.principal); e != nil {
		return nil, nil, e
	}
	if e := g.checkLive(ctx, claims); e != nil {
		return nil, nil, e
	}
	return claims, rec, nil
}

func toPolicyPrincipal(p *authn.Principal) policy.Principal {
	return policy.Principal{ID: p.ID, Issuer: p.Issuer, Groups: p.Groups, Claims: p.Claims}
}
