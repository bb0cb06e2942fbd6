package proxy

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The gateway's own credential for an upstream. The proxy strips the
// caller's credentials from every request it sends (Authorization among
// them); a transport below sets the gateway's, so an upstream that wants
// one gets the gateway's and never the caller's.

// ClientCredentials returns a transport that sends each request through
// base with an OAuth 2.0 client-credentials token from cc, fetched (and
// refreshed) through base, each fetch bounded to ten seconds. The token
// fetches outlive ctx's cancellation, not its values.
func ClientCredentials(ctx context.Context, base http.RoundTripper, cc clientcredentials.Config) http.RoundTripper {
	tokenCtx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient,
		&http.Client{Transport: base, Timeout: 10 * time.Second})
	return &oauth2.Transport{Source: cc.TokenSource(tokenCtx), Base: base}
}

// StaticBearer returns a transport that sends each request through base
// with Authorization: Bearer token.
func StaticBearer(base http.RoundTripper, token string) http.RoundTripper {
	return staticBearer{base: base, value: "Bearer " + token}
}

type staticBearer struct {
	base  http.RoundTripper
	value string
}

// RoundTrip implements http.RoundTripper on a copy of r, as a transport
// must not change the request it is given.
func (s staticBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", s.value)
	return s.base.RoundTrip(r)
}
