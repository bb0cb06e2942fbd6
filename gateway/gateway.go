package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/proxy"
)

// Options are the dependencies of a Gateway.
type Options struct {
	Config        *config.Config
	Authenticator *authn.Authenticator
	Capabilities  *Capabilities
	Logger        *slog.Logger
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// Getenv reads upstream client secrets. Defaults to no environment.
	Getenv func(string) string
	// ReadFile reads upstream client-secret files.
	ReadFile func(string) ([]byte, error)
	// Metrics receives the gateway's observations; nil records nothing.
	Metrics *metrics.Metrics
	// MetricsHandler serves /metrics; nil serves nothing there.
	MetricsHandler http.Handler
	// Tracer records spans; nil records nothing.
	Tracer trace.Tracer
	// A2E is the A2E front, mounted at /a2e/{host}/; nil when no host is
	// configured.
	A2E *a2efront.Front
	// Ready are readiness checks (the shared store reachable, say);
	// /readyz fails while any fails.
	Ready []func(context.Context) error
}

// Gateway is capgate's public HTTP surface.
type Gateway struct {
	cfg      *config.Config
	authn    *authn.Authenticator
	caps     *Capabilities
	logger   *slog.Logger
	now      func() time.Time
	limits   jsonrpc.Limits
	agents   map[string]*agent
	router   chi.Router
	ready    []func(context.Context) error
	metrics  *metrics.Metrics
	scrape   http.Handler
	unsealed *unsealCache
	a2e      *a2efront.Front
	methods  map[string]methodHandler
	tracer   trace.Tracer
	draining atomic.Bool
}

// agent is one fronted upstream agent.
type agent struct {
	cfg       config.Agent
	url       *url.URL
	proxy     *proxy.Proxy
	client    *http.Client
	card      *agentcard.Source
	skills    map[string]string
	publicURL string
}

// New builds a gateway from its config. It performs no network I/O: agent
// cards and OIDC discovery are fetched on first use.
func New(ctx context.Context, opts Options) (*Gateway, error) {
	if opts.Config == nil || opts.Authenticator == nil {
		return nil, errors.New("gateway: config and authenticator are required")
	}
	if err := opts.Capabilities.validate(); err != nil {
		return nil, err
	}
	g := &Gateway{
		cfg:      opts.Config,
		authn:    opts.Authenticator,
		caps:     opts.Capabilities,
		ready:    opts.Ready,
		metrics:  opts.Metrics,
		scrape:   opts.MetricsHandler,
		a2e:      opts.A2E,
		tracer:   opts.Tracer,
		logger:   opts.Logger,
		now:      opts.Now,
		agents:   map[string]*agent{},
		unsealed: newUnsealCache(),
		limits:   opts.Config.Limits.Limits,
	}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.tracer == nil {
		g.tracer = noop.NewTracerProvider().Tracer(tracerName)
	}
	if err := g.limits.Validate(); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	for _, ac := range opts.Config.Agents {
		a, err := g.newAgent(ctx, ac, opts)
		if err != nil {
			return nil, err
		}
		g.agents[ac.Name] = a
	}
	g.methods = g.extensionMethods()
	g.router = g.routes()
	return g, nil
}

func (g *Gateway) newAgent(ctx context.Context, ac config.Agent, opts Options) (*agent, error) {
	u, err := url.Parse(ac.URL)
	if err != nil {
		return nil, fmt.Errorf("gateway: agent %s: %w", ac.Name, err)
	}
	rt, err := upstreamTransport(ctx, ac, opts)
	if err != nil {
		return nil, err
	}
	a := &agent{
		cfg:       ac,
		url:       u,
		skills:    ac.Skills,
		publicURL: g.cfg.PublicURL + "/a2a/" + ac.Name,
		client:    &http.Client{Transport: rt, CheckRedirect: noRedirect},
	}
	a.proxy = proxy.New(u, proxy.Options{
		Transport:    rt,
		ErrorHandler: g.upstreamError,
		Logger:       g.logger,
	})
	a.card = agentcard.NewSource(cardConfig(ac, u, a.publicURL), rt, g.now, g.logger)
	return a, nil
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// upstreamTransport returns the transport for one agent: a tuned transport,
// wrapped with the gateway's own client-credentials token when configured.
func upstreamTransport(ctx context.Context, ac config.Agent, opts Options) (http.RoundTripper, error) {
	base := proxy.NewTransport()
	ua := ac.UpstreamAuth
	if ua == nil {
		return base, nil
	}
	secret, err := clientSecret(ua, opts)
	if err != nil {
		return nil, fmt.Errorf("gateway: agent %s: %w", ac.Name, err)
	}
	cc := clientcredentials.Config{
		ClientID: ua.ClientID, ClientSecret: secret,
		TokenURL: ua.TokenURL, Scopes: ua.Scopes,
	}
	tokenCtx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient,
		&http.Client{Transport: base, Timeout: 10 * time.Second})
	return &oauth2.Transport{Source: cc.TokenSource(tokenCtx), Base: base}, nil
}

func clientSecret(ua *config.UpstreamAuth, opts Options) (string, error) {
	if ua.ClientSecretEnv != "" {
		if opts.Getenv == nil || opts.Getenv(ua.ClientSecretEnv) == "" {
			return "", fmt.Errorf("client secret: environment variable %s is empty", ua.ClientSecretEnv)
		}
		return opts.Getenv(ua.ClientSecretEnv), nil
	}
	if opts.ReadFile == nil {
		return "", errors.New("client secret: no file reader configured")
	}
	b, err := opts.ReadFile(ua.ClientSecretFile)
	if err != nil {
		return "", fmt.Errorf("client secret: %w", err)
	}
	return string(trimSpace(b)), nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func cardConfig(ac config.Agent, u *url.URL, public string) agentcard.Config {
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
	grants := make([]agentcard.Grant, 0, len(ac.Grants))
	for _, gr := range ac.Grants {
		grants = append(grants, agentcard.Grant(gr))
	}
	return agentcard.Config{
		Agent: ac.Name, CardURLs: urls, PublicURL: public,
		Grants: grants, Legacy: ac.Legacy, Refresh: ac.CardRefresh.D(),
	}
}

// Handler returns the gateway's HTTP handler.
func (g *Gateway) Handler() http.Handler { return g.router }

// SetDraining marks the gateway as draining: readiness reports false so
// that load balancers stop sending new traffic.
func (g *Gateway) SetDraining() { g.draining.Store(true) }
