package issue

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// Audit events of the issuance flows. Each carries the principal, the
// target (under the key agent, whatever the front), the grants, the
// capability ids and the decision with its reason word; never a real
// resource id.
const (
	EventIssue     = "capability.issue"
	EventAttenuate = "capability.attenuate"
	EventRevoke    = "capability.revoke"
)

// ErrNoResolver is wrapped when a target has no way to resolve a resource
// query (an agent without the a2a/resources/resolve hook or a catalog, an
// MCP server without a catalog): a grant that is not whole-target is then
// denied with detail no_resolver.
var ErrNoResolver = errors.New("the target cannot resolve resources")

// PolicySource yields the policy that decides one request.
type PolicySource interface {
	Current() *policy.Policy
}

// Target is what a capability request is addressed to.
type Target interface {
	// Name is the target's name: the audience of what is issued, and the
	// target the policy decides for.
	Name() string
	// Grant returns the target's grant of that id.
	Grant(id string) (policy.Grant, bool)
	// Resolve returns the target's resources that match q. An error
	// wrapping ErrNoResolver says it has no way to know them, and its
	// text is the refusal's explanation.
	Resolve(ctx context.Context, q *policy.ResourceQuery) ([]policy.Resource, error)
}

// Config bounds what is issued.
type Config struct {
	// Issuer is the iss of every token minted.
	Issuer string
	// MaxTTL is the gateway's ceiling on a capability's life, on top of
	// the policy's own.
	MaxTTL time.Duration
}

// Deps are the Issuer's collaborators.
type Deps struct {
	// Keys sign minted capabilities; Verifier reads them back. Required.
	Keys     *captoken.KeySet
	Verifier *captoken.Verifier
	// Index stores every capability minted. Required.
	Index capindex.Index
	// Revocations stores revocations; required for Revoke.
	Revocations revocation.Store
	// Policy decides issuance. Required for Request.
	Policy PolicySource
	// Limits bounds each principal's issuance, attenuation and live
	// capabilities; nil limits nothing.
	Limits *ratelimit.Limiter
	// Approvals holds requests waiting for a human; nil denies those.
	Approvals approval.Store
	// Shadow, when set, is a candidate policy that decides every request
	// beside Policy without enforcing anything; each disagreement is
	// audited (policy.shadow_disagreement) and reported to Disagreed.
	Shadow    PolicySource
	Disagreed func()
	// Checks decides the emergency stop (Checker.NotFrozen): nothing is
	// issued or attenuated to or for a frozen target or principal. Nil
	// freezes nothing.
	Checks *enforce.Checker
	// Audit records one event; nil records nothing.
	Audit func(ctx context.Context, event string, attrs ...slog.Attr)
	// Logger is the operational logger; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Issuer answers the capability flows of every front.
type Issuer struct {
	cfg  Config
	deps Deps
}

// New returns an Issuer over deps, which the front has validated. It
// performs no I/O and is cheap: a front may build one per call, so that
// it always works on the front's current stores.
func New(cfg Config, deps Deps) *Issuer {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Audit == nil {
		deps.Audit = func(context.Context, string, ...slog.Attr) {}
	}
	return &Issuer{cfg: cfg, deps: deps}
}

// PolicyPrincipal is the principal as policy decides for it.
func PolicyPrincipal(p *authn.Principal) policy.Principal {
	return policy.Principal{ID: p.ID, Issuer: p.Issuer, Groups: p.Groups, Claims: p.Claims}
}
