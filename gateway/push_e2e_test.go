package gateway_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/a2aproject/a2a-go/a2asrv/push"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// echoNotes is an a2a-go executor that answers every message with a task
// whose artifact repeats the text it received: given a handle, the
// gateway hands it the note's storage id, which it repeats.
type echoNotes struct{}

func (echoNotes) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := ""
	for _, p := range rc.Message.Parts {
		if tp, ok := p.(a2a.TextPart); ok {
			text += tp.Text
		}
	}
	final := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCompleted, nil)
	final.Final = true
	for _, ev := range []a2a.Event{a2a.NewSubmittedTask(rc, rc.Message), a2a.NewArtifactEvent(rc, a2a.TextPart{Text: "echo " + text}), final} {
		if err := q.Write(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (echoNotes) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil))
}

// pushAgent is a stock a2a-go v0.3 agent with the SDK's push store and
// HTTP push sender, declaring push support (or not) on its card.
type pushAgent struct {
	url     string
	store   *push.InMemoryPushConfigStore
	counter *postCounter
}

func startPushAgent(t *testing.T, pushes bool) *pushAgent {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{Name: "notes", Description: "echoes notes", URL: srv.URL + "/", PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion: "0.3.0", Version: "1.0.0", DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{PushNotifications: pushes, Extensions: []a2a.AgentExtension{{URI: agentcard.ExtensionURI}}},
		Skills:       []a2a.AgentSkill{{ID: "notes.read", Name: "read", Description: "reads", Tags: []string{"notes"}}}}
	store := push.NewInMemoryStore()
	h := a2asrv.NewHandler(echoNotes{}, a2asrv.WithPushNotifications(store, push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 5 * time.Second})))
	mux.Handle("GET /.well-known/", a2asrv.NewStaticAgentCardHandler(card))
	counter := &postCounter{next: a2asrv.NewJSONRPCHandler(h)}
	mux.Handle("POST /", counter)
	return &pushAgent{url: srv.URL + "/", store: store, counter: counter}
}

// receiver is the caller's push endpoint: a TLS server recording every
// delivery.
type receiver struct {
	srv *httptest.Server
	got chan delivery
}

type delivery struct {
	token string
	body  []byte
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{got: make(chan delivery, 64)}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- delivery{token: req.Header.Get("X-A2A-Notification-Token"), body: b}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// next waits for the next delivery; the deadline is a hang guard, not a
// timing assertion.
func (r *receiver) next(t *testing.T) delivery {
	t.Helper()
	select {
	case d := <-r.got:
		return d
	case <-time.After(20 * time.Second):
		t.Fatal("no push delivered")
		return delivery{}
	}
}

// pushHarness fronts the push agent as the gated notes agent, with the
// relay on (relay) or off, and serves the gateway where the relay URLs
// point.
func pushHarness(t *testing.T, agent *pushAgent, rcv *receiver, relay bool) *harness {
	t.Helper()
	return pushHarnessWith(t, agent, rcv, relay, nil, nil)
}

// pushHarnessWith is pushHarness with hooks on the config and the build
// options (a shared Redis and key set, for replicas).
func pushHarnessWith(t *testing.T, agent *pushAgent, rcv *receiver, relay bool, mod func(*config.Config), bmod func(*gateway.BuildOptions)) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(rcv.srv.Certificate())
	h := newHarnessWith(t, rawUpstream{http.NotFoundHandler()}, func(cfg *config.Config) {
		cfg.Agents = slices.DeleteFunc(cfg.Agents, func(a config.Agent) bool { return a.Name == "notes" })
		a := &cfg.Agents[1]
		a.Name, a.URL, a.Principal = "notes", agent.url, "agent:notes"
		a.Messages = &config.Messages{RequireCapability: true, Operation: "read", AgentEnforcesOperations: true}
		a.Skills = map[string]string{"notes.read": "read", "notes.write": "write"}
		a.Grants = []policy.Grant{{ID: "notes:read", Operations: []string{"read"}, Attenuable: true},
			{ID: "notes:write", Operations: []string{"write"}, Attenuable: true, Requires: []string{"notes:read"}}}
		a.Catalog = []policy.Resource{
			{ID: "notes/alice-groceries", Collection: "personal", DisplayName: "Alice's groceries", Attributes: map[string]string{"owner": "alice"}},
			{ID: "notes/bob-ideas", Collection: "personal", DisplayName: "Bob's ideas", Attributes: map[string]string{"owner": "bob"}},
		}
		if relay {
			cfg.PushRelay = &config.PushRelay{URL: "http://" + ln.Addr().String(), AllowPrivateTargets: true, MaxAttempts: 3,
				Backoff: config.Duration(10 * time.Millisecond), QueueSize: 16, MaxConfigs: 100}
		}
		if mod != nil {
			mod(cfg)
		}
	}, func(bo *gateway.BuildOptions) {
		bo.PushRootCAs = roots
		if bmod != nil {
			bmod(bo)
		}
	})
	gs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h.gw.Handler()}}
	gs.Start()
	t.Cleanup(gs.Close)
	return h
}

func withPush(params map[string]any, cfg map[string]any) map[string]any {
	params["configuration"] = map[string]any{"blocking": true, "pushNotificationConfig": cfg}
	return params
}

// TestPushRelayEndToEnd: a caller sets a push config with its send; the
// a2a-go agent's push sender posts to the relay, never to the caller;
// the caller's receiver gets handles and no storage id, with its own
// token; the configs read back show the caller's URL; once the
// capability is revoked, the agent's pushes are dropped.
func TestPushRelayEndToEnd(t *testing.T) {
	agent, rcv := startPushAgent(t, true), startReceiver(t)
	h := pushHarness(t, agent, rcv, true)
	alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
	groceries := alice.handle("Alice's groceries")
	hook := map[string]any{"url": rcv.srv.URL + "/hook", "token": "caller-token",
		"authentication": map[string]any{"schemes": []string{"Bearer"}, "credentials": "caller-secret"}}
	body := h.notesCall("alice-dev-key", "message/send", withPush(noteMessage("read "+groceries, alice.ID, "notes.read", ""), hook))
	r := decodeRPC(t, body)
	var task struct {
		ID string `json:"id"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ID == "" {
		t.Fatalf("send: %s", body)
	}
	noStorageIDs(t, "answer", body)

	// What the agent holds is the relay's config, not the caller's.
	held, err := agent.store.List(context.Background(), a2a.TaskID(task.ID))
	if err != nil || len(held) != 1 {
		t.Fatalf("agent's push configs: %v %v", held, err)
	}
	if strings.Contains(held[0].URL, rcv.srv.URL) || held[0].Token == "caller-token" || held[0].Auth != nil ||
		!strings.Contains(held[0].URL, "/a2a/notes/push/") {
		t.Fatalf("the agent was given the caller's target: %+v", held[0])
	}

	d := rcv.next(t)
	if d.token != "caller-token" || !strings.Contains(string(d.body), task.ID) {
		t.Errorf("delivery: token %q body %s", d.token, d.body)
	}
	noStorageIDs(t, "push", d.body)
	if strings.Contains(string(d.body), held[0].Token) {
		t.Errorf("the relay secret reached the caller: %s", d.body)
	}
	// The agent repeated the storage id it was handed; the caller's
	// receiver sees the handle.
	for !strings.Contains(string(d.body), groceries) {
		d = rcv.next(t)
		noStorageIDs(t, "push", d.body)
	}
	for len(rcv.got) > 0 {
		noStorageIDs(t, "push", (<-rcv.got).body)
	}

	// Listing shows the caller its own config, in both spellings.
	list := h.notesCall("alice-dev-key", "tasks/pushNotificationConfig/list",
		map[string]any{"id": task.ID, "metadata": map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": alice.ID}}})
	if !strings.Contains(string(list), rcv.srv.URL+"/hook") || strings.Contains(string(list), "/push/") ||
		strings.Contains(string(list), held[0].Token) || !strings.Contains(string(list), "caller-secret") {
		t.Errorf("list: %s", list)
	}

	// An agent pushing with the wrong secret is refused.
	sender := push.NewHTTPPushSender(&push.HTTPSenderConfig{FailOnError: true})
	forged := *held[0]
	forged.Token = "not-the-secret"
	tk := &a2a.Task{ID: a2a.TaskID(task.ID), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	if err := sender.SendPush(context.Background(), &forged, tk); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("forged push: %v", err)
	}
	// A push about another task is refused.
	other := *tk
	other.ID = "someone-elses-task"
	if err := sender.SendPush(context.Background(), held[0], &other); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("push about another task: %v", err)
	}
	// The agent's own sender, pushing with its config, is delivered.
	tk.Status.State = a2a.TaskStateWorking
	if err := sender.SendPush(context.Background(), held[0], tk); err != nil {
		t.Fatalf("push before revocation: %v", err)
	}
	for d := rcv.next(t); !strings.Contains(string(d.body), `"working"`); d = rcv.next(t) {
	}

	if r := decodeRPC(t, h.notesCall("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": alice.ID})); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	// The relay answers the agent before it queues anything: a refused
	// push is never delivered.
	tk.Status.State = a2a.TaskStateCanceled
	if err := sender.SendPush(context.Background(), held[0], tk); err == nil || !strings.Contains(err.Error(), "410") {
		t.Errorf("push after revocation: %v, want 410 Gone", err)
	}
	for len(rcv.got) > 0 {
		if d := <-rcv.got; strings.Contains(string(d.body), `"canceled"`) {
			t.Errorf("a push was delivered after revocation: %s", d.body)
		}
	}
	m := scrape(t, h.srv.URL+"/metrics")
	for _, want := range []string{`capgate_push_relay_pushes_total{agent="notes",outcome="dropped_revoked"} 1`,
		`capgate_push_relay_pushes_total{agent="notes",outcome="unauthenticated"} 1`,
		`capgate_push_relay_pushes_total{agent="notes",outcome="refused"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestPushConfigRefusals: every refused push config, on a send or on a
// set, leaves the agent untouched.
func TestPushConfigRefusals(t *testing.T) {
	rcv := startReceiver(t)
	hook := map[string]any{"url": rcv.srv.URL + "/hook"}
	tests := []struct {
		name                   string
		pushes, relay, private bool
		set                    bool // on tasks/pushNotificationConfig/set rather than a send
		cfg                    map[string]any
		code                   int
		reason                 string
	}{
		{"send to an agent without push support", false, true, true, false, hook, -32004, "missing_capability"},
		{"send with the relay off", true, false, true, false, hook, -32004, "push_not_relayed"},
		{"set with the relay off", true, false, true, true, hook, -32004, "push_not_relayed"},
		{"http target", true, true, true, false, map[string]any{"url": strings.Replace(rcv.srv.URL, "https:", "http:", 1)}, jsonrpc.CodeInvalidParams, "push_target_refused"},
		{"credentials in the url", true, true, true, false, map[string]any{"url": strings.Replace(rcv.srv.URL, "https://", "https://u:p@", 1)}, jsonrpc.CodeInvalidParams, "push_target_refused"},
		{"loopback target on send", true, true, false, false, hook, jsonrpc.CodeInvalidParams, "push_target_refused"},
		{"loopback target on set", true, true, false, true, hook, jsonrpc.CodeInvalidParams, "push_target_refused"},
		{"metadata address", true, true, false, true, map[string]any{"url": "https://169.254.169.254/latest/meta-data"}, jsonrpc.CodeInvalidParams, "push_target_refused"},
		{"unknown member", true, true, true, true, map[string]any{"url": rcv.srv.URL, "callback": "https://elsewhere.example"}, jsonrpc.CodeInvalidParams, "invalid_params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			agent := startPushAgent(t, tc.pushes)
			h := pushHarnessWith(t, agent, rcv, tc.relay, func(c *config.Config) {
				if c.PushRelay != nil {
					c.PushRelay.AllowPrivateTargets = tc.private
				}
			}, nil)
			alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
			var body []byte
			if tc.set {
				r := decodeRPC(t, h.notesCall("alice-dev-key", "message/send", noteMessage("read", alice.ID, "notes.read", "")))
				var task struct{ ID string }
				if r.Error != nil || json.Unmarshal(r.Result, &task) != nil {
					t.Fatalf("send: %+v", r.Error)
				}
				before := agent.counter.n.Load()
				body = h.notesCall("alice-dev-key", "tasks/pushNotificationConfig/set", map[string]any{"taskId": task.ID,
					"pushNotificationConfig": tc.cfg, "metadata": map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": alice.ID}}})
				agent.sawNothingSince(t, before)
			} else {
				before := agent.counter.n.Load()
				body = h.notesCall("alice-dev-key", "message/send", withPush(noteMessage("read", alice.ID, "notes.read", ""), tc.cfg))
				agent.sawNothingSince(t, before)
			}
			if r := decodeRPC(t, body); r.Error == nil || r.Error.Code != tc.code || !strings.Contains(string(body), tc.reason) {
				t.Errorf("got %s, want code %d (%s)", body, tc.code, tc.reason)
			}
		})
	}
}

// TestSendWithTwoPushConfigs: a send carrying v0.3's and v1.0's push
// config side by side is refused: one would be relayed and the other
// forwarded.
func TestSendWithTwoPushConfigs(t *testing.T) {
	rcv := startReceiver(t)
	agent := startPushAgent(t, true)
	h := pushHarness(t, agent, rcv, true)
	alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
	params := noteMessage("read", alice.ID, "notes.read", "")
	params["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": rcv.srv.URL + "/a"},
		"taskPushNotificationConfig": map[string]any{"url": "https://elsewhere.example/b"}}
	before := agent.counter.n.Load()
	body := h.notesCall("alice-dev-key", "message/send", params)
	agent.sawNothingSince(t, before)
	if r := decodeRPC(t, body); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("got %s, want invalid params", body)
	}
}

// sawNothingSince fails when the agent received a call since it had
// received before.
func (a *pushAgent) sawNothingSince(t *testing.T, before int64) {
	t.Helper()
	if n := a.counter.n.Load(); n != before {
		t.Errorf("the agent received %d calls; a refused call must never reach it", n-before)
	}
}
