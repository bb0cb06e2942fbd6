package a2afront

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/pushrelay"
)

// EventPush is the audit event of the push relay: a caller's config
// relayed (decision "relayed"), or a push an agent posted to the relay
// that the gateway refused or dropped (decision: the outcome).
const EventPush = "push.relay"

// maxPushBody bounds what an agent may post to the relay in one push.
const maxPushBody = 1 << 20

// servePush is POST /a2a/{agent}/push/{id}: a push from the agent for a
// relayed config. The agent presents the config's secret (as its push
// token, X-A2A-Notification-Token, or as a Bearer credential). The push
// must be about the config's task and pass the answer pipeline, under
// the capability the config was set with, still live, neither the agent
// nor the caller frozen; then it is queued for delivery to the caller's
// URL. The agent gets 202 once it is queued; 401, 404, 410 (the
// capability is revoked or expired, or a freeze holds), 422 (the
// pipeline refused it) or 503 (a store or the queue could not take it)
// otherwise, with nothing delivered.
func (f *Front) servePush(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a, ok := f.agents[chiAgent(r)]
	if !ok || f.deps.Push == nil {
		f.pushRefused(ctx, w, "", metrics.PushUnknownConfig, http.StatusNotFound, nil)
		return
	}
	rec, err := f.deps.Push.Store.Get(ctx, a.cfg.Name, chi.URLParam(r, "id"))
	switch {
	case errors.Is(err, pushrelay.ErrNotFound):
		f.pushRefused(ctx, w, a.cfg.Name, metrics.PushUnknownConfig, http.StatusNotFound, nil)
		return
	case err != nil:
		f.pushRefused(ctx, w, a.cfg.Name, metrics.PushUnavailable, http.StatusServiceUnavailable, err)
		return
	}
	if !rec.Authentic(pushSecret(r)) {
		f.pushRefused(ctx, w, a.cfg.Name, metrics.PushUnauthenticated, http.StatusUnauthorized, nil)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPushBody))
	if err != nil {
		f.pushRefused(ctx, w, a.cfg.Name, metrics.PushRefused, http.StatusRequestEntityTooLarge, err)
		return
	}
	outcome, status, err := f.relayPush(ctx, a, rec, body)
	if status != http.StatusAccepted {
		f.pushRefused(ctx, w, a.cfg.Name, outcome, status, err, slog.String("task", rec.Task),
			slog.String("capability_id", rec.CapabilityID), slog.String("caller", rec.Owner))
		return
	}
	f.deps.Metrics.ObservePush(a.cfg.Name, metrics.PushAccepted)
	w.WriteHeader(http.StatusAccepted)
}

// pushSecret is the secret the agent presented.
func pushSecret(r *http.Request) string {
	if t := r.Header.Get("X-A2A-Notification-Token"); t != "" {
		return t
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return t
	}
	return ""
}

// pushRefused answers the agent status, counts the outcome and audits
// why the push went no further.
func (f *Front) pushRefused(ctx context.Context, w http.ResponseWriter, agent, outcome string, status int, err error, attrs ...slog.Attr) {
	f.deps.Metrics.ObservePush(agent, outcome)
	attrs = append(attrs, slog.String("agent", agent), slog.String("decision", outcome))
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	f.audit(ctx, EventPush, attrs...)
	w.WriteHeader(status)
}

// relayPush decides one authenticated push and queues it.
func (f *Front) relayPush(ctx context.Context, a *agent, rec pushrelay.Record, body []byte) (string, int, error) {
	task, ok := pushrelay.TaskOf(body)
	if !ok || (rec.Task != "" && task != rec.Task) {
		return metrics.PushRefused, http.StatusUnprocessableEntity, errors.New("the push is not about the config's task")
	}
	c := &call{agent: a, principal: &authn.Principal{ID: rec.Owner}, canonical: jsonrpc.MethodSendStreamingMessage,
		req: jsonrpc.Request{ID: json.RawMessage("0"), Method: "message/stream"}}
	if rec.V1 {
		c.translated = jsonrpc.MethodSendStreamingMessage
	}
	if rec.CapabilityID == "" {
		// A config set without a capability is stopped by a freeze as well.
		if r := f.checks.NotFrozen(ctx, a.cfg.Name, rec.Owner); r != nil {
			return stoppedPush(r)
		}
	} else {
		// Decide checks the freeze of the agent and the owner too.
		_, scope, r := f.checks.Decide(ctx, enforce.Request{Holder: rec.Owner, Audience: a.cfg.Name, CapabilityID: rec.CapabilityID})
		if r != nil {
			return stoppedPush(r)
		}
		c.scope = scope
	}
	wrapped, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "result": json.RawMessage(body)})
	out, err := f.answers.Unary(ctx, answer.Call[*call]{Value: c, ID: c.req.ID, Target: a.cfg.Name, Scoped: c.scope != nil}, wrapped)
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err != nil || json.Unmarshal(out, &resp) != nil || resp.Error != nil || len(resp.Result) == 0 {
		if resp.Error != nil && resp.Error.Reason() == string(enforce.CapabilityRevoked) {
			return metrics.PushRevoked, http.StatusGone, resp.Error
		}
		return metrics.PushRefused, http.StatusUnprocessableEntity, errors.Join(err, errOf(resp.Error))
	}
	// Binds a config that came with a send to its task, and refreshes
	// the record's life, as the task index's is refreshed by each answer.
	rec.Task = task
	if err := f.deps.Push.Store.Put(ctx, rec); err != nil {
		return metrics.PushUnavailable, http.StatusServiceUnavailable, err
	}
	if !f.deps.Push.Deliverer.Enqueue(pushrelay.Push{Agent: a.cfg.Name, Target: rec.Target, Body: resp.Result}) {
		return metrics.PushQueueFull, http.StatusServiceUnavailable, errors.New("the delivery queue is full")
	}
	return metrics.PushAccepted, http.StatusAccepted, nil
}

// stoppedPush is the outcome of a push a revocation, expiry or freeze
// stopped (410), or whose stores could not answer (503).
func stoppedPush(r *enforce.Refusal) (string, int, error) {
	if r.Reason == enforce.RevocationUnavailable {
		return metrics.PushUnavailable, http.StatusServiceUnavailable, r
	}
	return metrics.PushRevoked, http.StatusGone, r
}

func errOf(e *jsonrpc.Error) error {
	if e == nil {
		return nil
	}
	return e
}
