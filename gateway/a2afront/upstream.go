package a2afront

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/proxy"
)

// upstreamTransport returns the transport for one agent: a tuned transport,
// wrapped with the gateway's own client-credentials token when configured.
func upstreamTransport(ctx context.Context, ac config.Agent, deps Deps) (http.RoundTripper, error) {
	base := proxy.NewTransport()
	ua := ac.UpstreamAuth
	if ua == nil {
		return base, nil
	}
	secret, err := clientSecret(ua, deps)
	if err != nil {
		return nil, fmt.Errorf("a2a front: agent %s: %w", ac.Name, err)
	}
	cc := clientcredentials.Config{
		ClientID: ua.ClientID, ClientSecret: secret,
		TokenURL: ua.TokenURL, Scopes: ua.Scopes,
	}
	tokenCtx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient,
		&http.Client{Transport: base, Timeout: 10 * time.Second})
	return &oauth2.Transport{Source: cc.TokenSource(tokenCtx), Base: base}, nil
}

func clientSecret(ua *config.UpstreamAuth, deps Deps) (string, error) {
	if ua.ClientSecretEnv != "" {
		if deps.Getenv == nil || deps.Getenv(ua.ClientSecretEnv) == "" {
			return "", fmt.Errorf("client secret: environment variable %s is empty", ua.ClientSecretEnv)
		}
		return deps.Getenv(ua.ClientSecretEnv), nil
	}
	if deps.ReadFile == nil {
		return "", errors.New("client secret: no file reader configured")
	}
	b, err := deps.ReadFile(ua.ClientSecretFile)
	if err != nil {
		return "", fmt.Errorf("client secret: %w", err)
	}
	return string(bytes.TrimRight(b, "\r\n ")), nil
}

// cardConfig is where the agent's card is fetched from and how it is
// rewritten for callers.
func cardConfig(ac config.Agent, u *url.URL, public string, issuers []string) agentcard.Config {
	base := u
	if ac.CardURL != "" {
		if cu, err := url.Parse(ac.CardURL); err == nil {
			base = cu
		}
	}
	urls := []*url.URL{base.ResolveReference(&url.URL{Path: "/.well-known/agent-card.json"}),
		base.ResolveReference(&url.URL{Path: "/.well-known/agent.json"})}
	if ac.CardURL != "" {
		urls = []*url.URL{base}
	}
	return agentcard.Config{
		Agent: ac.Name, CardURLs: urls, PublicURL: public,
		Grants: ac.Grants, Legacy: ac.Legacy, Refresh: ac.CardRefresh.D(), OIDCIssuers: issuers,
	}
}
