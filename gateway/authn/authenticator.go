package authn

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/capgate/capgate/gateway/platform"
)

// MaxTokenBytes bounds a presented credential. Anything longer is refused
// before any parsing, base64 decoding or hashing.
const MaxTokenBytes = 16 << 10

// Options are the dependencies of an Authenticator. Every field is optional.
type Options struct {
	// HTTPClient fetches discovery documents and key sets. It is copied,
	// never modified; a zero Timeout becomes 10s. Nil means a fresh client.
	HTTPClient *http.Client
	// Runtime's clock times token expiry and discovery retries (nil
	// means time.Now); its logger receives discovery events and refusals,
	// never a credential (nil discards them).
	platform.Runtime
	// DiscoveryRetryInterval is the least time between two discovery
	// attempts for an issuer that failed; zero means 1s.
	DiscoveryRetryInterval time.Duration
}

// Authenticator turns a bearer credential (an OIDC JWT from a configured
// issuer, or a dev API key) into a Principal. It is safe for concurrent use.
type Authenticator struct {
	issuers map[string]*issuer
	algs    []jose.SignatureAlgorithm // union over issuers, for routing
	devKeys *devKeySet
	logger  *slog.Logger
}

// New validates the configuration (see ValidateConfig) and returns an
// Authenticator. It performs no network I/O: each issuer is discovered on
// the first token that names it. ctx supplies values (not cancellation) to
// those later background fetches.
func New(ctx context.Context, issuers []IssuerConfig, devKeys []DevKey, opts Options) (*Authenticator, error) {
	if err := ValidateConfig(issuers, devKeys); err != nil {
		return nil, err
	}
	now, logger, retry := opts.Now, opts.Logger, opts.DiscoveryRetryInterval
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if retry <= 0 {
		retry = defaultDiscoveryRetry
	}
	dk, err := newDevKeySet(devKeys)
	if err != nil {
		return nil, err
	}
	a := &Authenticator{issuers: map[string]*issuer{}, devKeys: dk, logger: logger}
	client, base := fetchClient(opts.HTTPClient), context.WithoutCancel(ctx)
	seen := map[jose.SignatureAlgorithm]bool{}
	for _, c := range issuers {
		c = withDefaults(c)
		a.issuers[c.Issuer] = &issuer{cfg: c, base: base, client: client, now: now, retry: retry, logger: logger}
		for _, alg := range c.Algorithms {
			if !seen[jose.SignatureAlgorithm(alg)] {
				seen[jose.SignatureAlgorithm(alg)] = true
				a.algs = append(a.algs, jose.SignatureAlgorithm(alg))
			}
		}
	}
	if len(devKeys) > 0 {
		logger.Warn("authn: dev API keys are enabled; use them only for the quickstart", "count", len(devKeys))
	}
	return a, nil
}

func withDefaults(c IssuerConfig) IssuerConfig {
	if len(c.Algorithms) == 0 {
		c.Algorithms = DefaultAlgorithms()
	} else {
		c.Algorithms = append([]string(nil), c.Algorithms...)
	}
	if c.UserClaim == "" {
		c.UserClaim = DefaultUserClaim
	}
	if c.AgentClaim == "" {
		c.AgentClaim = DefaultAgentClaim
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = DefaultGroupsClaim
	}
	return c
}

// AuthenticateToken authenticates a raw credential, as found after
// "Bearer " or in an A2E handshake's auth_token. A token of three
// dot-separated parts is treated as a JWT and goes to OIDC; anything else is
// looked up as a dev API key.
//
// The error wraps exactly one of ErrNoCredentials (empty token),
// ErrInvalidCredentials (including ErrUnknownIssuer and ErrTokenExpired) or
// ErrIssuerUnavailable. The returned Principal is the caller's own copy.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*Principal, error) {
	switch {
	case token == "":
		return nil, ErrNoCredentials
	case len(token) > MaxTokenBytes:
		return nil, invalid(fmt.Sprintf("credential longer than %d bytes", MaxTokenBytes))
	case strings.Count(token, ".") == 2:
		return a.authenticateJWT(ctx, token, "")
	default:
		return a.devKeys.authenticate(token)
	}
}

// AuthenticateRequest authenticates the request's Authorization header. It
// accepts exactly one header of the form "Bearer <token>" (scheme matched
// case-insensitively). No header, or an empty token, is ErrNoCredentials;
// another scheme, several Authorization headers or a token with spaces is
// ErrInvalidCredentials. The request is not modified: stripping the caller's
// credential before proxying is the proxy's job.
func (a *Authenticator) AuthenticateRequest(ctx context.Context, r *http.Request) (*Principal, error) {
	return a.AuthenticateRequestFor(ctx, r, "")
}

// AuthenticateRequestFor is AuthenticateRequest at a protected resource
// of its own (RFC 8707, RFC 9728): an OIDC token must name resource in its
// aud instead of its issuer's configured audience, so that a token issued
// for one resource is refused at every other. A dev API key is
// authenticated as by AuthenticateRequest. An empty resource is
// AuthenticateRequest.
func (a *Authenticator) AuthenticateRequestFor(ctx context.Context, r *http.Request, resource string) (*Principal, error) {
	token, err := bearerToken(r.Header)
	if err != nil {
		return nil, err
	}
	if strings.Count(token, ".") == 2 && len(token) <= MaxTokenBytes {
		return a.authenticateJWT(ctx, token, resource)
	}
	return a.AuthenticateToken(ctx, token)
}

func bearerToken(h http.Header) (string, error) {
	values := h.Values("Authorization")
	switch len(values) {
	case 0:
		return "", ErrNoCredentials
	case 1:
	default:
		return "", invalid("several Authorization headers")
	}
	v := strings.TrimSpace(values[0])
	if v == "" {
		return "", ErrNoCredentials
	}
	scheme, token, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", invalid("authorization scheme is not Bearer")
	}
	token = strings.TrimLeft(token, " ")
	if strings.ContainsAny(token, " \t") {
		return "", invalid("bearer token contains spaces")
	}
	if token == "" {
		return "", ErrNoCredentials
	}
	return token, nil
}

// authenticateJWT routes the token to its issuer by its unverified iss,
// then verifies it fully with that issuer's verifier, for audience (empty:
// the issuer's configured audience).
func (a *Authenticator) authenticateJWT(ctx context.Context, token, audience string) (*Principal, error) {
	if len(a.issuers) == 0 {
		return nil, ErrUnknownIssuer
	}
	iss, err := a.unverifiedIssuer(token)
	if err != nil {
		return nil, err
	}
	is, ok := a.issuers[iss]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownIssuer, iss)
	}
	idt, err := is.verify(ctx, token, audience)
	if err != nil {
		a.logger.DebugContext(ctx, "authn: token refused", "issuer", iss, "error", err)
		return nil, err
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, invalid("claims are not a JSON object")
	}
	return principalFromClaims(is.cfg, claims)
}

// unverifiedIssuer reads iss WITHOUT verifying anything but the algorithm
// list; it is used only to pick the verifier.
func (a *Authenticator) unverifiedIssuer(token string) (string, error) {
	parsed, err := jwt.ParseSigned(token, a.algs)
	if err != nil {
		return "", invalid("malformed JWT or algorithm not allowed")
	}
	var claims struct {
		Issuer any `json:"iss"`
	}
	if err := parsed.UnsafeClaimsWithoutVerification(&claims); err != nil {
		return "", invalid("malformed JWT claims")
	}
	iss, ok := claims.Issuer.(string)
	if !ok || iss == "" {
		return "", invalid("JWT has no string iss claim")
	}
	return iss, nil
}

// invalid wraps ErrInvalidCredentials with a reason meant for logs, never
// for the caller.
func invalid(reason string) error {
	return fmt.Errorf("%w: %s", ErrInvalidCredentials, reason)
}
