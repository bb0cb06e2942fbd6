package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/cors"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

func (g *Gateway) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(cors.Middleware(g.cfg.CORS.Settings()))
	r.Get("/healthz", g.healthz)
	r.Get("/readyz", g.readyz)
	r.Get("/.well-known/jwks.json", g.serveJWKS)
	if g.scrape != nil {
		r.Method(http.MethodGet, "/metrics", g.scrape)
	}
	r.Route("/a2a/{agent}", func(r chi.Router) {
		r.Use(g.traceRequest)
		r.Get("/.well-known/agent-card.json", g.serveCard)
		r.Get("/.well-known/agent.json", g.serveCard)
		r.Group(func(r chi.Router) {
			r.Use(g.countUnauthenticated, g.tracedAuthn)
			r.Post("/", g.serveA2A)
			r.Get("/capabilities", g.serveCapabilities)
		})
	})
	if g.a2e != nil {
		g.a2e.Mount(r)
	}
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "not found"})
	})
	return r
}

func (g *Gateway) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSONStatus(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz reports whether this replica should receive traffic: false while
// draining, so that in-flight requests finish while new ones go elsewhere,
// and false while a readiness check (the shared store) fails. The policy
// is always loaded: the gateway does not start without one.
func (g *Gateway) readyz(w http.ResponseWriter, r *http.Request) {
	if g.draining.Load() {
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	for _, check := range g.ready {
		if err := check(ctx); err != nil {
			w.Header().Set("Retry-After", "1")
			writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"status": "store unavailable"})
			return
		}
	}
	writeJSONStatus(w, http.StatusOK, map[string]string{
		"status": "ready", "policyRevision": g.caps.Policy.Current().Revision(),
	})
}

// serveJWKS publishes the public keys that verify capability tokens.
func (g *Gateway) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=300")
	writeJSONStatus(w, http.StatusOK, g.caps.Keys.JWKS())
}

func (g *Gateway) serveCard(w http.ResponseWriter, r *http.Request) {
	a, ok := g.agents[chi.URLParam(r, "agent")]
	if !ok {
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "unknown agent"})
		return
	}
	card, _, err := a.card.Card(r.Context())
	if err != nil {
		g.logger.WarnContext(r.Context(), "agent card unavailable", "agent", a.cfg.Name, "error", err)
		w.Header().Set("Retry-After", "5")
		writeJSONStatus(w, http.StatusBadGateway, map[string]string{"error": "agent card unavailable"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=60")
	_, _ = w.Write(card)
}

// upstreamError answers a failed upstream hop with a JSON-RPC error.
func (g *Gateway) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	markUpstreamFailed(r.Context())
	g.logger.WarnContext(r.Context(), "upstream call failed", "path", r.URL.Path, "error", err)
	id := requestIDFrom(r.Context())
	resp := jsonrpc.NewError(id, &jsonrpc.Error{
		Code: jsonrpc.CodeInternal, Message: "upstream agent unavailable",
		Data: map[string]string{"reason": "upstream_unavailable"},
	})
	jsonrpc.WriteResponse(w, http.StatusBadGateway, resp)
}

func chiAgent(r *http.Request) string { return chi.URLParam(r, "agent") }
