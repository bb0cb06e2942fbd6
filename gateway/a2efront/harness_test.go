package a2efront_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// The quickstart principals' dev keys and the lab host's own secret.
const (
	aliceKey  = "alice-dev-key"
	bobKey    = "bob-dev-key"
	labSecret = "lab-host-secret"
)

// fixedPolicy is a PolicySource holding one policy.
type fixedPolicy struct{ p *policy.Policy }

func (f fixedPolicy) Current() *policy.Policy { return f.p }

// quickstartPolicy loads deploy/examples/quickstart/policy.yaml against
// the quickstart catalog (host lab offering tools, memory and env).
func quickstartPolicy(t testing.TB) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile("../../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// authenticator knows alice (finance) and bob (contractors) by dev key.
func authenticator(t testing.TB) *authn.Authenticator {
	t.Helper()
	a, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey(aliceKey), Principal: "user:alice@example.com", Groups: []string{"finance"}},
		{Hash: authn.HashKey(bobKey), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// String returns everything written.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// events returns the audit records named msg.
func (b *syncBuffer) events(msg string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(b.buf.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// world is the lab host behind one or more gateway fronts.
type world struct {
	lab    *lab.Host
	labURL string
	fronts []*httptest.Server
	audit  *syncBuffer
	logs   *syncBuffer
	// hostCalls counts the HTTP requests the lab host received, by path.
	hostCalls *pathCounter
}

// pathCounter counts the requests a handler receives, by path.
type pathCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *pathCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[r.URL.Path]++
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// count returns the requests received for path.
func (c *pathCounter) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

// testRecordKey is the record key every front of a world shares, as
// replicas deriving it from one key set do.
var testRecordKey = bytes.Repeat([]byte{0x5a}, a2efront.MinRecordKeyBytes)

type worldOptions struct {
	lab    lab.Options
	stores []a2efront.SessionStore // one front per store; nil: one memory store
	config func(*a2efront.Config)
	now    func() time.Time // the fronts' clock; nil means time.Now
	// policy is the fronts' policy source; nil means the quickstart policy.
	policy a2efront.PolicySource
	// recordKey is the fronts' record key; nil means testRecordKey.
	recordKey []byte
	// frozen is the fronts' freeze list; nil freezes nothing.
	frozen *freeze.Set
	// shadow is the fronts' shadow policy, and disagreed counts its
	// disagreements; nil means none.
	shadow    a2efront.PolicySource
	disagreed func()
}

func newWorld(t testing.TB, o worldOptions) *world {
	t.Helper()
	o.lab.AuthToken = labSecret
	h, err := lab.New(o.lab)
	if err != nil {
		t.Fatal(err)
	}
	hostCalls := &pathCounter{n: map[string]int{}}
	labSrv := httptest.NewServer(hostCalls.wrap(h.Handler()))
	t.Cleanup(func() { labSrv.Close(); _ = h.Close() })
	w := &world{lab: h, labURL: labSrv.URL, audit: &syncBuffer{}, logs: &syncBuffer{}, hostCalls: hostCalls}
	if o.recordKey == nil {
		o.recordKey = testRecordKey
	}
	if o.stores == nil {
		o.stores = []a2efront.SessionStore{a2efront.NewMemoryStore(o.now)}
	}
	auth := authenticator(t)
	if o.policy == nil {
		o.policy = fixedPolicy{quickstartPolicy(t)}
	}
	for _, st := range o.stores {
		cfg := a2efront.Config{Hosts: []a2efront.Host{
			{Name: "lab", URL: labSrv.URL + "/", AuthToken: labSecret, Version: "1.0", Capabilities: []string{"tools", "memory", "env"}},
			{Name: "other", URL: labSrv.URL + "/", AuthToken: labSecret},
		}}
		if o.config != nil {
			o.config(&cfg)
		}
		f, err := a2efront.New(cfg, a2efront.Deps{
			Authenticate: auth.AuthenticateToken, AuthenticateRequest: auth.AuthenticateRequest, Policy: o.policy, Sessions: st,
			Audit: slog.New(slog.NewJSONHandler(w.audit, nil)), Runtime: platform.Runtime{Now: o.now, Logger: slog.New(slog.NewJSONHandler(w.logs, nil))},
			RecordKey: o.recordKey, Frozen: o.frozen, Shadow: o.shadow, Disagreed: o.disagreed,
		})
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		f.Mount(r)
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		w.fronts = append(w.fronts, srv)
	}
	return w
}

// base is the A2E transport base of host lab on front i.
func (w *world) base(i int) string { return w.fronts[i].URL + "/a2e/lab/" }

// open opens a session on front 0 and its stream.
func (w *world) open(t testing.TB) *lab.Client {
	t.Helper()
	c, err := lab.NewSession(testCtx(t), nil, w.base(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var testNow = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

// sendRaw posts a line and returns the HTTP status and body.
func sendRaw(t testing.TB, c *lab.Client, line string) (int, string) {
	t.Helper()
	status, body, err := c.Send(testCtx(t), []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return status, string(body)
}

var idSeq struct {
	mu sync.Mutex
	n  int
}

func nextID() string {
	idSeq.mu.Lock()
	defer idSeq.mu.Unlock()
	idSeq.n++
	return "msg-" + strings.Repeat("0", 3) + string(rune('a'+idSeq.n%26)) + time.Now().Format("150405.000000")
}

// send encodes body with a fresh id and checks the HTTP status.
func send(t testing.TB, c *lab.Client, body a2e.Body, wantStatus int) string {
	t.Helper()
	id := nextID()
	status, err := c.SendMessage(testCtx(t), a2e.NewEnvelope("", id, testNow, a2e.KeyA2E, "1.0"), body)
	if err != nil || status != wantStatus {
		t.Fatalf("send %T: status %d, %v; want %d", body, status, err, wantStatus)
	}
	return id
}

func next(t testing.TB, c *lab.Client) a2e.Message {
	t.Helper()
	m, err := c.Next(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// handshake sends a handshake/req with token and caps and returns the
// rewritten handshake/resp.
func handshake(t testing.TB, c *lab.Client, token string, caps ...string) (*a2e.HandshakeResp, a2e.Message) {
	t.Helper()
	id := send(t, c, &a2e.HandshakeReq{AgentID: "test-agent", AgentCaps: caps, AuthToken: token}, http.StatusAccepted)
	m := next(t, c)
	resp, ok := m.Body.(*a2e.HandshakeResp)
	if !ok || resp.ReqID != id {
		t.Fatalf("got %s, want the handshake/resp to %s", m.Raw, id)
	}
	return resp, m
}

// expectError reads the next message and checks it is an A2E error.
func expectError(t testing.TB, c *lab.Client, reqID, code string) *a2e.Error {
	t.Helper()
	m := next(t, c)
	e, ok := m.Body.(*a2e.Error)
	if !ok || e.Code != code || (reqID != "" && e.ReqID != reqID) {
		t.Fatalf("got %s, want error %s for %q", m.Raw, code, reqID)
	}
	return e
}

// capsByName indexes accepted_caps.
func capsByName(resp *a2e.HandshakeResp) map[string]a2e.Capability {
	out := map[string]a2e.Capability{}
	for _, c := range resp.AcceptedCaps {
		out[c.Capability] = c
	}
	return out
}

// hostSaw returns the lines the lab host received of type typ.
func (w *world) hostSaw(typ string) []lab.RecordedMessage {
	var out []lab.RecordedMessage
	for _, m := range w.lab.Recorder().Messages() {
		if m.Type == typ {
			out = append(out, m)
		}
	}
	return out
}
