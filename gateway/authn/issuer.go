package authn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

const (
	// defaultFetchTimeout bounds a discovery or JWKS request when the
	// caller's HTTP client sets no timeout of its own.
	defaultFetchTimeout = 10 * time.Second
	// defaultDiscoveryRetry is the least time between two discovery
	// attempts for an issuer that failed.
	defaultDiscoveryRetry = time.Second
)

// issuer is one trusted OIDC issuer. Discovery happens lazily, on the first
// token that names it, and is retried on later tokens after a failure, so an
// issuer that is down at startup neither stops the gateway nor lets anyone
// in. Concurrent callers share one in-flight discovery.
type issuer struct {
	cfg    IssuerConfig // defaults applied
	base   context.Context
	client *http.Client
	now    func() time.Time
	retry  time.Duration
	logger *slog.Logger

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
	lastErr  error
	lastTry  time.Time
	inflight chan struct{}
}

// verifierFor returns the issuer's verifier, discovering it if needed.
// A failure wraps ErrIssuerUnavailable.
func (is *issuer) verifierFor(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	is.mu.Lock()
	if is.verifier != nil {
		v := is.verifier
		is.mu.Unlock()
		return v, nil
	}
	if is.inflight == nil {
		if is.lastErr != nil && is.now().Sub(is.lastTry) < is.retry {
			err := is.lastErr
			is.mu.Unlock()
			return nil, err
		}
		is.inflight = make(chan struct{})
		is.lastTry = is.now()
		go is.discover(is.inflight)
	}
	wait := is.inflight
	is.mu.Unlock()

	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %s: %w", ErrIssuerUnavailable, is.cfg.Issuer, ctx.Err())
	case <-wait:
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.verifier != nil {
		return is.verifier, nil
	}
	return nil, is.lastErr
}

// discover runs one discovery attempt and publishes its result. Its
// context carries the values of New's context but not its cancellation,
// and is bounded by defaultFetchTimeout.
func (is *issuer) discover(done chan struct{}) {
	ctx, cancel := context.WithTimeout(is.base, defaultFetchTimeout)
	defer cancel()
	v, err := is.newVerifier(ctx)

	is.mu.Lock()
	defer is.mu.Unlock()
	if err != nil {
		is.lastErr = fmt.Errorf("%w: %s: %w", ErrIssuerUnavailable, is.cfg.Issuer, err)
		is.logger.Warn("authn: OIDC discovery failed; will retry on a later request",
			"issuer", is.cfg.Issuer, "error", err)
	} else {
		is.verifier, is.lastErr = v, nil
		is.logger.Info("authn: OIDC issuer discovered", "issuer", is.cfg.Issuer)
	}
	is.inflight = nil
	close(done)
}

// newVerifier fetches the discovery document and builds a verifier over the
// issuer's remote JWKS. Expiry, issuer and signature are verified by
// go-oidc; the audience by verify.
func (is *issuer) newVerifier(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	ctx = oidc.ClientContext(ctx, is.client)
	provider, err := oidc.NewProvider(ctx, is.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	var meta struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err := provider.Claims(&meta); err != nil {
		return nil, err
	}
	if u, err := url.Parse(meta.JWKSURL); err != nil || secureURL(u) != nil {
		return nil, fmt.Errorf("discovery document: jwks_uri %q is not a secure URL", meta.JWKSURL)
	}
	keys := classifyingKeySet{remote: oidc.NewRemoteKeySet(oidc.ClientContext(is.base, is.client), meta.JWKSURL)}
	// The audience is checked by verify, against the configured one or
	// the resource's (RFC 8707); every other check is go-oidc's.
	return oidc.NewVerifier(is.cfg.Issuer, keys, &oidc.Config{
		SkipClientIDCheck:    true,
		SupportedSigningAlgs: is.cfg.Algorithms,
		Now:                  is.now,
	}), nil
}

// verify checks token against this issuer and returns its verified claims.
// Its aud must include audience, or the issuer's configured audience when
// audience is empty. A bad token wraps ErrInvalidCredentials (or
// ErrTokenExpired); a key-set fetch failure or an ended context wraps
// ErrIssuerUnavailable.
func (is *issuer) verify(ctx context.Context, token, audience string) (*oidc.IDToken, error) {
	v, err := is.verifierFor(ctx)
	if err != nil {
		return nil, err
	}
	outcome := &verifyOutcome{}
	idt, err := v.Verify(context.WithValue(ctx, outcomeKey{}, outcome), token)
	if err == nil {
		audience = cmp.Or(audience, is.cfg.Audience)
		if !slices.Contains(idt.Audience, audience) {
			return nil, invalid(fmt.Sprintf("oidc: expected audience %q got %q", audience, idt.Audience))
		}
		return idt, nil
	}
	if outcome.fetchErr != nil {
		return nil, fmt.Errorf("%w: %s: key set: %w", ErrIssuerUnavailable, is.cfg.Issuer, outcome.fetchErr)
	}
	var expired *oidc.TokenExpiredError
	if errors.As(err, &expired) && expired.Expiry.IsZero() {
		return nil, invalid("token has no exp claim")
	}
	if errors.As(err, &expired) {
		return nil, fmt.Errorf("%w: expired at %s", ErrTokenExpired, expired.Expiry.UTC().Format(time.RFC3339))
	}
	return nil, invalid(err.Error())
}
