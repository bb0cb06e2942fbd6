package authn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/coreos/go-oidc/v3/oidc"
)

// go-oidc flattens key-set errors into strings (%v), so a JWKS endpoint
// that is down looks just like a bad signature once Verify returns. To keep
// a technical failure apart from a bad credential, fetches go through
// fetchTransport, which marks every transport failure and every HTTP error
// status with *fetchError, and the remote key set is wrapped by
// classifyingKeySet, which records such a failure in a per-call outcome
// carried by the context.

// fetchError marks a failure to fetch a discovery document or key set.
type fetchError struct{ err error }

func (e *fetchError) Error() string { return "fetch failed: " + e.err.Error() }
func (e *fetchError) Unwrap() error { return e.err }

// fetchTransport marks transport errors and HTTP statuses >= 400 as
// *fetchError. It is used only by the authenticator's own client for
// discovery and JWKS requests.
type fetchTransport struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t fetchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, &fetchError{err: err}
	}
	if resp.StatusCode >= http.StatusBadRequest {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		return nil, &fetchError{err: fmt.Errorf("%s %s: %s", req.Method, req.URL.Redacted(), resp.Status)}
	}
	return resp, nil
}

// fetchClient returns a copy of base (or a default client) whose transport
// marks fetch failures, whose timeout is never unbounded (go-oidc's
// background JWKS refresh has no deadline of its own), and which, unless
// base sets its own CheckRedirect, refuses a redirect to an insecure URL.
// base itself is left unchanged.
func fetchClient(base *http.Client) *http.Client {
	c := &http.Client{Timeout: defaultFetchTimeout}
	if base != nil {
		cp := *base
		c = &cp
	}
	if c.Timeout == 0 {
		c.Timeout = defaultFetchTimeout
	}
	if c.CheckRedirect == nil {
		c.CheckRedirect = refuseInsecureRedirect
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = fetchTransport{base: rt}
	return c
}

// refuseInsecureRedirect stops a discovery or JWKS request from being
// redirected to plain http on a non-loopback host, or more than 10 times.
func refuseInsecureRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if err := secureURL(req.URL); err != nil {
		return fmt.Errorf("redirect to %s refused: %w", req.URL.Redacted(), err)
	}
	return nil
}

// verifyOutcome collects, for one Verify call, a key-set fetch failure.
type verifyOutcome struct{ fetchErr error }

type outcomeKey struct{}

// classifyingKeySet wraps go-oidc's remote key set and records fetch
// failures in the verifyOutcome found in the context.
type classifyingKeySet struct{ remote oidc.KeySet }

var _ oidc.KeySet = classifyingKeySet{}

// VerifySignature implements oidc.KeySet. It is only called by go-oidc's
// IDTokenVerifier, after the algorithm check.
func (k classifyingKeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.remote.VerifySignature(ctx, jwt)
	if err == nil {
		return payload, nil
	}
	var fe *fetchError
	if errors.As(err, &fe) || ctx.Err() != nil {
		if o, ok := ctx.Value(outcomeKey{}).(*verifyOutcome); ok {
			o.fetchErr = err
		}
	}
	return nil, err
}
