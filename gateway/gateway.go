package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/mcpfront"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/revocation"
)

// Capabilities are the gateway's capability dependencies: the key set that
// signs tokens, the verifier, the index of issued capabilities, the
// revocation store and the grant policy.
type Capabilities struct {
	Keys        *captoken.KeySet
	Verifier    *captoken.Verifier
	Index       capindex.Index
	Revocations revocation.Store
	// Frozen is the emergency stop (package freeze); nil freezes nothing.
	Frozen *freeze.Set
	Policy a2afront.PolicySource
	// Shadow is the candidate policy deciding beside Policy without
	// enforcing (policy.shadow_file); nil when none is configured.
	Shadow a2afront.PolicySource
	// Tasks records who started each task; nil means an in-memory index
	// bounded by the config's limits.
	Tasks taskindex.Index
	// Audit receives one structured event per issuance, attenuation,
	// invocation decision and revocation.
	Audit *slog.Logger
	// Refusals bounds the audit events of refused admin API and console
	// calls per client; nil means one on Audit whose summaries are
	// written at the next refused call.
	Refusals *throttle.Throttle
	// Limits bounds each principal's use; nil limits nothing.
	Limits *ratelimit.Limiter
	// Approvals holds requests waiting for human approval; nil denies
	// every request that needs one.
	Approvals approval.Store
}

func (c *Capabilities) validate() error {
	if c == nil || c.Keys == nil || c.Verifier == nil || c.Index == nil || c.Revocations == nil || c.Policy == nil {
		return errors.New("gateway: capabilities need keys, verifier, index, revocation store and policy")
	}
	return nil
}

// Options are the dependencies of a Gateway.
type Options struct {
	Config        *config.Config
	Authenticator *authn.Authenticator
	Capabilities  *Capabilities
	// Runtime is what every part shares: the admin API and the console
	// take it (a nil clock is time.Now, a nil logger discards), the
	// console reads its secrets with its Getenv, and its metrics count
	// the admin listings.
	platform.Runtime
	// MetricsHandler serves /metrics; nil serves nothing there.
	MetricsHandler http.Handler
	// Fronts are the protocol fronts the gateway mounts; the A2A front
	// is required.
	Fronts Fronts
	// Ready are readiness checks (the shared store reachable, say);
	// /readyz fails while any fails.
	Ready []func(context.Context) error
}

// Gateway is capgate's public HTTP surface: the A2A front, the A2E front,
// health, readiness, the JWKS and metrics, and the admin API for its own
// listener.
type Gateway struct {
	cfg      *config.Config
	authn    *authn.Authenticator
	caps     *Capabilities
	logger   *slog.Logger
	router   chi.Router
	ready    []func(context.Context) error
	scrape   http.Handler
	a2a      *a2afront.Front
	a2e      *a2efront.Front
	mcp      *mcpfront.Front
	draining atomic.Bool
	admin    http.Handler
}

// New builds a gateway from its config around fronts already built (see
// Fronts): the router and the admin listener's handler. It performs no
// network I/O.
func New(ctx context.Context, opts Options) (*Gateway, error) {
	if opts.Config == nil || opts.Authenticator == nil {
		return nil, errors.New("gateway: config and authenticator are required")
	}
	if err := opts.Capabilities.validate(); err != nil {
		return nil, err
	}
	if opts.Fronts.A2A == nil {
		return nil, errors.New("gateway: the A2A front is required")
	}
	opts.Runtime = opts.Runtime.WithDefaults()
	g := &Gateway{
		cfg: opts.Config, authn: opts.Authenticator, caps: opts.Capabilities,
		ready: opts.Ready, scrape: opts.MetricsHandler, a2a: opts.Fronts.A2A, a2e: opts.Fronts.A2E, mcp: opts.Fronts.MCP,
		logger: opts.Logger,
	}
	g.router = g.routes()
	var err error
	if g.admin, err = g.adminHandler(opts); err != nil {
		return nil, err
	}
	return g, nil
}

// Handler returns the gateway's HTTP handler.
func (g *Gateway) Handler() http.Handler { return g.router }

// SetDraining marks the gateway as draining: readiness reports false so
// that load balancers stop sending new traffic.
func (g *Gateway) SetDraining() { g.draining.Store(true) }

// AdminHandler returns the admin API, for its own listener, with the
// operator console under /console/ when it is configured.
func (g *Gateway) AdminHandler() http.Handler { return g.admin }

func (g *Gateway) adminHandler(opts Options) (http.Handler, error) {
	index := countedListings{Index: g.caps.Index, m: opts.Metrics}
	refusals := g.caps.Refusals
	if refusals == nil {
		refusals = throttle.New(throttle.Options{Audit: g.caps.Audit, Now: opts.Now})
	}
	api := admin.New(admin.Config{Access: g.cfg.AdminAccess, MaxTTL: g.cfg.Capabilities.MaxTTL.D(), Agents: targetNames(g.cfg), Principals: targetPrincipals(g.cfg)}, admin.Deps{
		Authenticator: g.authn, Index: index, Verifier: g.caps.Verifier,
		Revocations: g.caps.Revocations, Frozen: g.caps.Frozen, Policy: g.caps.Policy, Audit: g.caps.Audit,
		Approvals: g.caps.Approvals, Refusals: refusals, Runtime: opts.Runtime,
	})
	c, err := console.FromConfig(g.cfg, console.Deps{
		Authenticator: g.authn, Index: index, Verifier: g.caps.Verifier,
		Revocations: g.caps.Revocations, Revoker: api, Freezer: api, Policy: g.caps.Policy, Shadow: g.caps.Shadow,
		Approvals: g.caps.Approvals, Audit: g.caps.Audit, Refusals: refusals, Runtime: opts.Runtime,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	if c == nil {
		return api.Handler(), nil
	}
	mux := http.NewServeMux()
	mux.Handle("/console/", c.Handler())
	mux.Handle("GET /{$}", c.Handler()) // a browser at the root lands on the console
	mux.Handle("/", api.Handler())
	return mux, nil
}

// targetPrincipals maps each agent and MCP server to the principal it
// calls out as, for the emergency stop.
func targetPrincipals(cfg *config.Config) map[string]string {
	m := map[string]string{}
	for _, a := range cfg.Agents {
		m[a.Name] = a.Principal
	}
	for _, s := range cfg.MCPServers {
		m[s.Name] = s.Principal
	}
	return m
}

// targetNames are the names of every agent, MCP server and A2E host cfg
// fronts: what an agent freeze may name.
func targetNames(cfg *config.Config) []string {
	var names []string
	for _, a := range cfg.Agents {
		names = append(names, a.Name)
	}
	for _, s := range cfg.MCPServers {
		names = append(names, s.Name)
	}
	for _, h := range cfg.A2EHosts {
		names = append(names, h.Name)
	}
	return names
}
