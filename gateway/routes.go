package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/cors"
)

func (g *Gateway) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(cors.Middleware(g.cfg.CORS.Settings()))
	r.Get("/healthz", g.healthz)
	r.Get("/readyz", g.readyz)
	r.Get(a2afront.JWKSPath, g.serveJWKS)
	if g.scrape != nil {
		r.Method(http.MethodGet, "/metrics", g.scrape)
	}
	g.a2a.Mount(r)
	if g.a2e != nil {
		g.a2e.Mount(r)
	}
	if g.mcp != nil {
		g.mcp.Mount(r)
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

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
