package a2afront

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/cardsig"
)

// Mount adds the front's routes to r:
//
//	GET  /a2a/{agent}/.well-known/agent-card.json   the rewritten card
//	GET  /a2a/{agent}/.well-known/agent.json        the same, older name
//	POST /a2a/{agent}                               JSON-RPC, authenticated
//	GET  /a2a/{agent}/capabilities                  AG-UI snapshot, authenticated
//	POST /a2a/{agent}/push/{id}                     a push for a relayed config,
//	                                                authenticated by the config's secret
func (f *Front) Mount(r chi.Router) {
	r.Route("/a2a/{agent}", func(r chi.Router) {
		r.Use(f.traceRequest)
		r.Get("/.well-known/agent-card.json", f.serveCard)
		r.Get("/.well-known/agent.json", f.serveCard)
		r.Post("/push/{id}", f.servePush)
		r.Group(func(r chi.Router) {
			r.Use(f.countUnauthenticated, f.tracedAuthn)
			r.Post("/", f.serveA2A)
			r.Get("/capabilities", f.serveCapabilities)
		})
	})
}

// serveCard serves the agent's card, rewritten to point at the gateway
// and to declare the grants a caller can ask for. A card that cannot be
// served (not fetched, refused, or not signed) is a 502 that says why,
// counted, and never a card served anyway.
func (f *Front) serveCard(w http.ResponseWriter, r *http.Request) {
	a, ok := f.agents[chi.URLParam(r, "agent")]
	if !ok {
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "unknown agent"})
		return
	}
	card, _, err := a.card.Card(r.Context())
	if err != nil {
		reason, msg := agentcard.Unserved(err)
		f.deps.Logger.WarnContext(r.Context(), "agent card not served", "agent", a.cfg.Name, "reason", reason, "error", err)
		f.deps.Metrics.ObserveCardRefused(a.cfg.Name, reason)
		w.Header().Set("Retry-After", "5")
		writeJSONStatus(w, http.StatusBadGateway, map[string]string{"error": msg, "reason": reason})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=60")
	_, _ = w.Write(card)
}

func chiAgent(r *http.Request) string { return chi.URLParam(r, "agent") }

// JWKSPath is where the gateway publishes the keys that verify its
// capability tokens and its agent card signatures.
const JWKSPath = "/.well-known/jwks.json"

// signedCards makes the card source sign every card it serves with the
// gateway's active key, as A2A v1.0 signs agent cards (package cardsig),
// naming the gateway's JWK set as jku.
func (f *Front) signedCards(cfg agentcard.Config) agentcard.Config {
	keys, jku := f.deps.Keys, f.cfg.PublicURL+JWKSPath
	cfg.Sign = func(card map[string]any) (any, error) {
		return cardsig.Sign(keys, card, jku)
	}
	return cfg
}
