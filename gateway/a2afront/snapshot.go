package a2afront

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/discovery"
)

// serveCapabilities is GET /a2a/{agent}/capabilities: an AG-UI
// AgentCapabilities snapshot of what the authenticated principal may
// actually do with the agent, decided by the policy in force now, so a
// reload changes it on the next call. Nothing is issued.
func (f *Front) serveCapabilities(w http.ResponseWriter, r *http.Request) {
	a, ok := f.agents[chi.URLParam(r, "agent")]
	p, authed := authn.PrincipalFrom(r.Context())
	if !ok || !authed {
		writeJSONStatus(w, http.StatusNotFound, map[string]string{"error": "unknown agent"})
		return
	}
	_, card, err := a.card.Card(r.Context())
	if err != nil {
		card = nil // unknown card facts are omitted, not guessed
	}
	snap, err := discovery.Snapshot(r.Context(), discovery.Input{
		Agent: a.cfg.Name, Card: card, PublicURL: a.publicURL, Grants: a.cfg.Grants, Skills: a.cfg.Skills,
		Policy: f.deps.Policy.Current(), Principal: toPolicyPrincipal(p), Now: f.deps.Now(),
		SubAgents: f.subAgents(a), MaxExecutionTime: f.cfg.UpstreamTimeout,
	})
	if err != nil {
		f.deps.Logger.WarnContext(r.Context(), "capability snapshot failed", "agent", a.cfg.Name, "error", err)
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSONStatus(w, http.StatusOK, snap)
}

// subAgents lists the capability-aware agents a capability may be
// delegated to: every fronted agent with an identity, other than a.
func (f *Front) subAgents(a *agent) []discovery.SubAgent {
	var out []discovery.SubAgent
	for _, ac := range f.cfg.Agents {
		if ac.Name != a.cfg.Name && ac.Principal != "" && !ac.Legacy {
			out = append(out, discovery.SubAgent{Name: ac.Name})
		}
	}
	return out
}
