package enforce

import (
	"context"
	"errors"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/revocation"
)

// Deps are what the checks read: where capabilities are found, how they
// are verified, whether they are revoked, and which targets the gateway
// fronts.
type Deps struct {
	// Index finds an issued capability by id.
	Index capindex.Index
	// Verifier verifies a capability token and opens its resource map.
	Verifier *captoken.Verifier
	// Revocations says whether a capability or an ancestor is revoked.
	Revocations revocation.Store
	// Frozen is the emergency stop: a capability for a frozen agent,
	// for or held by a frozen principal, or presented by one is refused.
	// Nil freezes nothing.
	Frozen *freeze.Set
	// Fronted reports whether a capability's audience is a target this
	// gateway serves; a capability for anything else is invalid here.
	Fronted func(target string) bool
	// Logger receives store failures; nil discards them.
	Logger *slog.Logger
	// Tracer records a span per verification and revocation check; nil
	// records nothing.
	Tracer trace.Tracer
}

// Checker decides whether a presented capability may be used. It is safe
// for concurrent use.
type Checker struct {
	deps     Deps
	unsealed *unsealCache
}

// New builds a Checker. Index, Verifier, Revocations and Fronted are
// required.
func New(d Deps) (*Checker, error) {
	if d.Index == nil || d.Verifier == nil || d.Revocations == nil || d.Fronted == nil {
		return nil, errors.New("enforce: index, verifier, revocation store and fronted are required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Tracer == nil {
		d.Tracer = noop.NewTracerProvider().Tracer("github.com/capgate/capgate/gateway/enforce")
	}
	return &Checker{deps: d, unsealed: newUnsealCache()}, nil
}

// verifyRefusal maps a verification failure to its refusal: expired and
// not-yet-valid tokens are capability_expired, everything else invalid.
func verifyRefusal(err error) *Refusal {
	if errors.Is(err, captoken.ErrExpired) || errors.Is(err, captoken.ErrNotYetValid) {
		return refuse(CapabilityExpired, "capability expired or not yet valid", nil)
	}
	return refuse(CapabilityInvalid, "capability invalid", nil)
}

// Load finds the capability a call names and verifies it. A presented
// token is always verified, even when the id alone would resolve: a bad
// credential is never ignored. A token read from the index is verified
// like a presented one, because the index is not trusted with authority.
// The audience must be the target the call is addressed to; an empty
// audience accepts any target the gateway fronts.
func (k *Checker) Load(ctx context.Context, audience, id, token string) (*captoken.Claims, *capindex.Record, *Refusal) {
	var rec *capindex.Record
	if token == "" {
		if id == "" {
			return nil, nil, refuse(CapabilityRequired, "this call must name a capability (capabilityId)", nil)
		}
		r, err := k.deps.Index.Get(ctx, id)
		switch {
		case errors.Is(err, capindex.ErrNotFound):
			return nil, nil, refuse(CapabilityInvalid, "unknown capability", nil)
		case err != nil:
			k.deps.Logger.ErrorContext(ctx, "capability index unavailable", "error", err)
			return nil, nil, Unavailable(CapabilityIndex, "")
		}
		rec = &r
	}
	claims, r := k.verify(ctx, audience, rec, token)
	if r != nil {
		return nil, nil, r
	}
	if !k.deps.Fronted(claims.Audience) {
		return nil, nil, refuse(CapabilityInvalid, "capability for an agent this gateway does not front", nil)
	}
	if id != "" && claims.CapabilityID != id {
		return nil, nil, refuse(CapabilityInvalid, "capabilityId does not match the presented token", nil)
	}
	return claims, rec, nil
}

// verify verifies the record's token when there is one, else the
// presented token, in a span of its own.
func (k *Checker) verify(ctx context.Context, audience string, rec *capindex.Record, token string) (*captoken.Claims, *Refusal) {
	_, span := k.deps.Tracer.Start(ctx, "verify")
	want := captoken.Expected{Audience: audience}
	var claims *captoken.Claims
	var err error
	if rec != nil {
		claims, err = k.deps.Verifier.VerifyPacked(ctx, rec.Token, want)
	} else {
		claims, err = k.deps.Verifier.Verify(ctx, token, want)
	}
	if err != nil {
		r := verifyRefusal(err)
		endWith(span, r)
		return nil, r
	}
	span.End()
	return claims, nil
}

// Live fails closed: any error from the revocation store is
// revocation_unavailable, never "not revoked".
func (k *Checker) Live(ctx context.Context, c *captoken.Claims) (r *Refusal) {
	ctx, span := k.deps.Tracer.Start(ctx, "revocation.check")
	defer func() { endWith(span, r) }()
	res, err := k.deps.Revocations.Check(ctx, revocation.Query{
		IDs: c.RevocationIDs(), Principal: c.Principal, IssuedAt: c.IssuedAt.Time(),
	})
	if err != nil {
		k.deps.Logger.WarnContext(ctx, "revocation check failed; refusing", "error", err)
		return Unavailable(RevocationStore, "")
	}
	if res.Revoked {
		return refuse(CapabilityRevoked, "capability revoked", nil)
	}
	return nil
}

// Usable loads a capability and runs every check that does not depend on
// what the call wants to do with it: verification, holder, revocation
// (own id, every ancestor's, and the principal's cutoff) and freeze (its
// agent, principal and holder, and the caller). The holder is
// checked before the store, so a caller cannot probe the revocation state
// of capabilities it does not hold. The audience may be empty, as in a
// delegated send, whose capabilities designate another agent's resources.
func (k *Checker) Usable(ctx context.Context, holder, audience, id, token string) (*captoken.Claims, *capindex.Record, *Refusal) {
	claims, rec, r := k.Load(ctx, audience, id, token)
	if r != nil {
		return nil, nil, r
	}
	if r := CheckHolder(claims, holder); r != nil {
		return nil, nil, r
	}
	if r := k.Live(ctx, claims); r != nil {
		return nil, nil, r
	}
	if r := k.NotFrozen(ctx, claims.Audience, claims.Principal, claims.Holder, holder); r != nil {
		return nil, nil, r
	}
	return claims, rec, nil
}

// NotFrozen refuses when the agent or one of the principals is frozen
// (capability_revoked, detail "frozen": freezing revoked its
// capabilities too, this says so even before the revocation reached the
// store), and fails closed when the freeze list cannot answer.
func (k *Checker) NotFrozen(ctx context.Context, agent string, principals ...string) *Refusal {
	if k.deps.Frozen == nil {
		return nil
	}
	e, err := k.deps.Frozen.Check(ctx, agent, principals...)
	if err != nil {
		k.deps.Logger.WarnContext(ctx, "freeze list unavailable; refusing", "error", err)
		return Unavailable(FreezeList, "")
	}
	if e != nil {
		return Frozen(e)
	}
	return nil
}

// Frozen is the refusal of a capability an operator's freeze stopped:
// capability_revoked with data.detail "frozen" and what is frozen (the
// kind and name, never the operator's reason).
func Frozen(e *freeze.Entry) *Refusal {
	return refuse(CapabilityRevoked, "capability revoked: the "+string(e.Kind)+" "+e.Name+" is frozen by an operator",
		map[string]any{"detail": "frozen", "frozen": map[string]string{"kind": string(e.Kind), "name": e.Name}})
}

// endWith ends span, marking it as an error when the step refused.
func endWith(span trace.Span, r *Refusal) {
	if r != nil {
		span.SetStatus(codes.Error, string(r.Reason))
		span.SetAttributes(attribute.String("capgate.reason", string(r.Reason)))
	}
	span.End()
}
