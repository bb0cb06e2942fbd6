package a2afront

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// The checks every capability-bearing call goes through, each a function
// of its own inputs, so that each can be tested alone:
//
//	checker.load       find (by id) and verify the capability; audience
//	checkHolder        the caller is the capability's holder
//	checker.live       neither it nor an ancestor is revoked (fail closed)
//	checkOperation     the skill's operation is in the capability
//	rewriteHandles     every handle named is the capability's; ids out
//
// Each returns the refusal to answer, or nil.

// checker holds what the capability checks read: where capabilities are
// found, how they are verified, whether they are revoked, and which
// agents the gateway fronts.
type checker struct {
	index       capindex.Index
	verifier    *captoken.Verifier
	revocations revocation.Store
	fronted     func(agent string) bool
	logger      *slog.Logger
	tracer      trace.Tracer
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

// load finds the capability a call names and verifies it. A presented
// token is always verified, even when the id alone would resolve: a bad
// credential is never ignored. A token read from the index is verified
// like a presented one, because the index is not trusted with authority.
// The audience must be the agent the call is addressed to; an empty
// audience accepts any agent the gateway fronts.
func (k checker) load(ctx context.Context, audience, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	var rec *capindex.Record
	if token == "" {
		if id == "" {
			return nil, nil, capErr(jsonrpc.CodeCapabilityRequired, "this call must name a capability (capabilityId)", nil)
		}
		r, err := k.index.Get(ctx, id)
		switch {
		case errors.Is(err, capindex.ErrNotFound):
			return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "unknown capability", nil)
		case err != nil:
			k.logger.ErrorContext(ctx, "capability index unavailable", "error", err)
			return nil, nil, capErr(jsonrpc.CodeRevocationUnavailable, "capability store unavailable", nil)
		}
		rec = &r
	}
	_, span := k.tracer.Start(ctx, "verify")
	want := captoken.Expected{Audience: audience}
	var claims *captoken.Claims
	var err error
	if rec != nil {
		claims, err = k.verifier.VerifyPacked(ctx, rec.Token, want)
	} else {
		claims, err = k.verifier.Verify(ctx, token, want)
	}
	if err != nil {
		e := verifyErr(err)
		endWith(span, e)
		return nil, nil, e
	}
	span.End()
	if !k.fronted(claims.Audience) {
		return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "capability for an agent this gateway does not front", nil)
	}
	if id != "" && claims.CapabilityID != id {
		return nil, nil, capErr(jsonrpc.CodeCapabilityInvalid, "capabilityId does not match the presented token", nil)
	}
	return claims, rec, nil
}

// live fails closed: any error from the revocation store is
// revocation_unavailable, never "not revoked".
func (k checker) live(ctx context.Context, c *captoken.Claims) (e *jsonrpc.Error) {
	ctx, span := k.tracer.Start(ctx, "revocation.check")
	defer func() { endWith(span, e) }()
	res, err := k.revocations.Check(ctx, revocation.Query{
		IDs: c.RevocationIDs(), Principal: c.Principal, IssuedAt: c.IssuedAt.Time(),
	})
	if err != nil {
		k.logger.WarnContext(ctx, "revocation check failed; refusing", "error", err)
		return capErr(jsonrpc.CodeRevocationUnavailable, "revocation state unavailable; try again", nil)
	}
	if res.Revoked {
		return capErr(jsonrpc.CodeCapabilityRevoked, "capability revoked", nil)
	}
	return nil
}

// usable loads a capability and runs every check that does not depend on
// what the call wants to do with it: verification, holder and revocation
// (own id, every ancestor's, and the principal's cutoff). The holder is
// checked before the store, so a caller cannot probe the revocation state
// of capabilities it does not hold. The audience may be empty, as in a
// delegated send, whose capabilities designate another agent's resources.
func (k checker) usable(ctx context.Context, caller *authn.Principal, audience, id, token string) (*captoken.Claims, *capindex.Record, *jsonrpc.Error) {
	claims, rec, e := k.load(ctx, audience, id, token)
	if e != nil {
		return nil, nil, e
	}
	if e := checkHolder(claims, caller); e != nil {
		return nil, nil, e
	}
	if e := k.live(ctx, claims); e != nil {
		return nil, nil, e
	}
	return claims, rec, nil
}

// checkHolder refuses a caller that is not the capability's holder.
func checkHolder(c *captoken.Claims, p *authn.Principal) *jsonrpc.Error {
	if c.Holder != p.ID {
		return capErr(jsonrpc.CodeHolderMismatch, "the caller is not the holder of this capability", nil)
	}
	return nil
}

// checkOperation refuses an operation the capability does not permit.
func checkOperation(c *captoken.Claims, op string) *jsonrpc.Error {
	if !c.HasOperation(op) {
		return capErr(jsonrpc.CodeOperationNotPermitted, "operation "+op+" is not in the capability",
			map[string]any{"operation": op, "allowed": c.Operations})
	}
	return nil
}

// conflictingTokens is presentedToken's refusal: the caller sent two
// different tokens, in the header and in params.
func conflictingTokens() *jsonrpc.Error {
	return capErr(jsonrpc.CodeCapabilityInvalid,
		"the capability token in the A2A-Capability header differs from the one in params", nil)
}

// presentedToken is the token the caller sent with the call, in params or
// in the A2A-Capability header; both may be sent only when they agree.
func presentedToken(r *http.Request, fromParams string) (string, *jsonrpc.Error) {
	h := strings.TrimSpace(r.Header.Get(proxy.HeaderCapabilityToken))
	switch {
	case fromParams == "":
		return h, nil
	case h != "" && h != fromParams:
		return "", conflictingTokens()
	}
	return fromParams, nil
}

func toPolicyPrincipal(p *authn.Principal) policy.Principal {
	return policy.Principal{ID: p.ID, Issuer: p.Issuer, Groups: p.Groups, Claims: p.Claims}
}
