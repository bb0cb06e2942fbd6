package console

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/capgate/capgate/gateway/config"
)

// oidcClient is the console's OIDC relying party. The issuer is
// discovered on the first sign-in, and again after a failure.
type oidcClient struct {
	cfg    config.ConsoleOIDC
	secret string
	client *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

func newOIDCClient(cfg config.ConsoleOIDC, secret string, client *http.Client) *oidcClient {
	if client == nil {
		client = http.DefaultClient
	}
	return &oidcClient{cfg: cfg, secret: secret, client: client}
}

// setup returns the discovered provider and the OAuth 2 client config.
func (o *oidcClient) setup(ctx context.Context) (*oidc.Provider, *oauth2.Config, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider == nil {
		p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.client), o.cfg.Issuer)
		if err != nil {
			return nil, nil, fmt.Errorf("console: discover %s: %w", o.cfg.Issuer, err)
		}
		o.provider = p
	}
	return o.provider, &oauth2.Config{
		ClientID: o.cfg.ClientID, ClientSecret: o.secret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: o.provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"},
	}, nil
}

// oidcStart sends the browser to the issuer with a fresh state, nonce
// and PKCE verifier, kept in the login cookie.
func (c *Console) oidcStart(w http.ResponseWriter, r *http.Request) {
	if c.oidc == nil {
		c.fail(w, http.StatusNotFound, "OIDC sign-in is not configured.")
		return
	}
	_, oc, err := c.oidc.setup(r.Context())
	if err != nil {
		c.deps.Logger.WarnContext(r.Context(), "console: OIDC issuer unavailable", "error", err)
		c.fail(w, http.StatusServiceUnavailable, "The OIDC issuer cannot be reached; try again shortly.")
		return
	}
	p := pending{Nonce: randomText(), State: randomText(), IDNonce: randomText(),
		Verifier: oauth2.GenerateVerifier(), Expires: c.deps.Now().Add(loginTTL).Unix()}
	v, err := c.seal.seal(loginCookie, p)
	if err != nil {
		c.fail(w, http.StatusInternalServerError, "The sign-in could not start.")
		return
	}
	c.setCookie(w, r, loginCookie, v, loginTTL)
	http.Redirect(w, r, oc.AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier), oidc.Nonce(p.IDNonce)), http.StatusFound)
}

// oidcCallback finishes the sign-in: the state must be the login cookie's,
// the code is exchanged with the PKCE verifier, the ID token must verify
// for the console's client with the cookie's nonce, and it must then
// authenticate as any caller's would (the issuer's audience and claims
// mapping), giving the principal.
func (c *Console) oidcCallback(w http.ResponseWriter, r *http.Request) {
	if c.oidc == nil {
		c.fail(w, http.StatusNotFound, "OIDC sign-in is not configured.")
		return
	}
	ctx := oidc.ClientContext(r.Context(), c.oidc.client)
	raw, err := c.exchange(ctx, r)
	if err != nil {
		c.deps.Logger.InfoContext(ctx, "console: OIDC sign-in refused", "error", err)
		c.refuse(w, r, http.StatusUnauthorized, "", "OIDC sign-in did not complete", "The sign-in did not complete; start again.")
		return
	}
	pr, err := c.deps.Authenticator.AuthenticateToken(ctx, raw)
	if err != nil {
		c.deps.Logger.InfoContext(ctx, "console: OIDC ID token refused", "error", err)
		c.refuse(w, r, http.StatusUnauthorized, "", "ID token refused", "The issuer's ID token was refused.")
		return
	}
	c.enter(w, r, pr)
}

// exchange checks the callback against the login cookie and returns the
// verified raw ID token.
func (c *Console) exchange(ctx context.Context, r *http.Request) (string, error) {
	var p pending
	if err := c.seal.open(r, loginCookie, &p); err != nil || p.State == "" || c.deps.Now().Unix() >= p.Expires {
		return "", errState
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.State)) != 1 {
		return "", errState
	}
	if e := q.Get("error"); e != "" {
		return "", fmt.Errorf("console: the issuer answered %q", e)
	}
	prov, oc, err := c.oidc.setup(ctx)
	if err != nil {
		return "", err
	}
	tok, err := oc.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return "", fmt.Errorf("console: code exchange: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := prov.Verifier(&oidc.Config{ClientID: c.oidc.cfg.ClientID, Now: c.deps.Now}).Verify(ctx, raw)
	if err != nil {
		return "", fmt.Errorf("console: ID token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(p.IDNonce)) != 1 {
		return "", fmt.Errorf("console: ID token nonce does not match")
	}
	return raw, nil
}
