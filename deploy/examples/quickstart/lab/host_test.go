package lab

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

func TestHandshakeRejections(t *testing.T) {
	tests := []struct {
		name       string
		line       func(id string) string
		wantReason string
	}{
		{"wrong token", func(id string) string {
			return `{"a2e":"1.0","type":"handshake/req","id":"` + id + `","agent_caps":["tools"],"auth_token":"alice-dev-key"}`
		}, a2e.ReasonAuthFailed},
		{"empty token", func(id string) string {
			return `{"a2e":"1.0","type":"handshake/req","id":"` + id + `","agent_caps":["tools"]}`
		}, a2e.ReasonAuthFailed},
		{"wrong version", func(id string) string {
			return `{"a2e":"2.0","type":"handshake/req","id":"` + id + `","agent_caps":["tools"],"auth_token":"` + testSecret + `"}`
		}, a2e.ReasonVersionMismatch},
		{"no version", func(id string) string {
			return `{"type":"handshake/req","id":"` + id + `","agent_caps":["tools"],"auth_token":"` + testSecret + `"}`
		}, a2e.ReasonVersionMismatch},
		{"nothing available", func(id string) string {
			return `{"version":"1.0","type":"handshake/req","id":"` + id + `","agent_caps":["chains","mcp"],"auth_token":"` + testSecret + `"}`
		}, a2e.ReasonNoCaps},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newTestHost(t, Options{})
			c := open(t, srv)
			if status, _, err := c.Send(testCtx(t), []byte(tc.line("h1"))); err != nil || status != http.StatusAccepted {
				t.Fatalf("send: %d %v", status, err)
			}
			m := next(t, c)
			resp, ok := m.Body.(*a2e.HandshakeResp)
			if !ok || resp.OK || resp.Reason != tc.wantReason || resp.ReqID != "h1" {
				t.Fatalf("got %s, want ok:false reason %s", m.Raw, tc.wantReason)
			}
			// The session is still unauthenticated.
			id := send(t, c, &a2e.ToolListReq{})
			expectError(t, c, id, a2e.CodeUnauthorized)
		})
	}
}

func TestHostServesPlugins(t *testing.T) {
	h, srv := newTestHost(t, Options{})
	c := open(t, srv)
	resp := handshake(t, c, testSecret, "tools", "memory", "env", "chains")
	if !resp.OK || resp.MaxParallel != a2e.DefaultMaxParallel || len(resp.AcceptedCaps) != 4 || resp.SessionID != c.SessionID {
		t.Fatalf("handshake = %+v", resp)
	}

	id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}, CorrelationID: "k1"})
	call := next(t, c).Body.(*a2e.ToolCallResp)
	if call.ReqID != id || !call.OK || call.CorrelationID != "k1" || call.Result.(map[string]any)["text"] != "hi" {
		t.Errorf("echo = %+v", call)
	}
	send(t, c, &a2e.ToolCallReq{ToolName: "clock"})
	clock := next(t, c).Body.(*a2e.ToolCallResp)
	if clock.Result.(map[string]any)["now"] != "2025-01-09T12:00:00Z" {
		t.Errorf("clock = %+v, want the injected time", clock)
	}
	send(t, c, &a2e.ToolCallReq{ToolName: "nope"})
	if e := next(t, c).Body.(*a2e.Error); e.Code != a2e.CodeNotFound {
		t.Errorf("unknown tool = %+v", e)
	}
	send(t, c, &a2e.ToolListReq{})
	list := next(t, c).Body.(*a2e.ToolListResp)
	if len(list.Tools) != 2 || list.Tools[0].Name != "clock" || list.Tools[1].Name != "echo" {
		t.Errorf("tools = %+v", list.Tools)
	}

	send(t, c, &a2e.MemoryStoreReq{MemoryID: "notes", Entries: []a2e.MemoryEntry{{Key: "b", Value: "2"}, {Key: "a", Value: "1"}}})
	if st := next(t, c).Body.(*a2e.MemoryStoreResp); st.Stored != 2 {
		t.Errorf("store = %+v", st)
	}
	send(t, c, &a2e.MemoryRetrieveReq{MemoryID: "notes"})
	got := next(t, c).Body.(*a2e.MemoryRetrieveResp)
	if len(got.Entries) != 2 || got.Entries[0].Key != "a" || got.Entries[1].Value != "2" {
		t.Errorf("retrieve = %+v", got)
	}

	id = send(t, c, &a2e.EnvStepReq{Action: "right"})
	expectError(t, c, id, a2e.CodeInvalidArguments)
	send(t, c, &a2e.EnvResetReq{})
	next(t, c)
	var last *a2e.EnvStepResp
	for _, a := range []string{"right", "right", "right", "right", "down", "down", "down", "down"} {
		send(t, c, &a2e.EnvStepReq{Action: a})
		last = next(t, c).Body.(*a2e.EnvStepResp)
	}
	if !last.Done || last.Reward != GoalReward {
		t.Errorf("last step = %+v, want the goal", last)
	}

	id = send(t, c, &a2e.Generic{Type: "chain/run/req"})
	if e := expectError(t, c, id, a2e.CodeCapabilityMissing); e.CapabilityName != "chains" {
		t.Errorf("capability_name = %q", e.CapabilityName)
	}
	if n := h.Recorder().Count(); n != 18 {
		t.Errorf("recorded %d messages, want 18 (%v)", n, h.Recorder().Types())
	}
}

func TestHostRefusesBadLines(t *testing.T) {
	h, srv := newTestHost(t, Options{MaxLineBytes: 256})
	c := open(t, srv)
	tests := []struct {
		line       string
		wantStatus int
		wantCode   string
	}{
		{"not json", http.StatusAccepted, a2e.CodeParseError},
		{`{"type":"ping","id":"p","Type":"env/step/req"}`, http.StatusAccepted, a2e.CodeParseError},
		{`{"type":"teleport/req","id":"p"}`, http.StatusAccepted, a2e.CodeInvalidMessage},
		{`{"type":"ping","id":"` + strings.Repeat("x", 300) + `"}`, http.StatusRequestEntityTooLarge, a2e.CodeMessageTooLarge},
		{`{"type":"ping","id":"p"}`, http.StatusAccepted, a2e.CodeUnauthorized},
	}
	for _, tc := range tests {
		status, _, err := c.Send(testCtx(t), []byte(tc.line))
		if err != nil || status != tc.wantStatus {
			t.Fatalf("send %.40q: status %d, %v; want %d", tc.line, status, err, tc.wantStatus)
		}
		expectError(t, c, "", tc.wantCode)
	}
	if h.Recorder().Count() != len(tests) {
		t.Errorf("recorded %d, want %d", h.Recorder().Count(), len(tests))
	}
}

func TestHostMaxParallel(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	slow := NewToolPlugin(PluginInfo{Name: "slow-tools", Priority: 10}, map[string]Tool{
		"wait": {Run: func(ctx context.Context, _ map[string]any) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
				return "done", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
	})
	_, srv := newTestHost(t, Options{MaxParallel: 1, Plugins: append(DefaultPlugins(fixedNow), slow)})
	c := open(t, srv)
	if resp := handshake(t, c, testSecret, "tools"); resp.MaxParallel != 1 {
		t.Fatalf("max_parallel = %d", resp.MaxParallel)
	}
	first := send(t, c, &a2e.ToolCallReq{ToolName: "wait"})
	<-started
	second := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}})
	if e := expectError(t, c, second, a2e.CodeTooManyRequests); !e.Retryable {
		t.Error("too_many_requests must be retryable")
	}
	close(release)
	if r := next(t, c).Body.(*a2e.ToolCallResp); r.ReqID != first || r.Result != "done" {
		t.Errorf("slow call = %+v", r)
	}
}

func TestHostTransportErrors(t *testing.T) {
	_, srv := newTestHost(t, Options{})
	for _, tc := range []struct{ method, path, session string }{
		{http.MethodPost, "/send", ""}, {http.MethodPost, "/send", "nope"}, {http.MethodGet, "/stream", "nope"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"type":"ping","id":"p"}`))
		req.Header.Set(SessionHeader, tc.session)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || body["error"] == nil {
			t.Errorf("%s %s session %q: %d %v, want 404 with a JSON error", tc.method, tc.path, tc.session, resp.StatusCode, body)
		}
	}
	if _, err := New(Options{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("New without AuthToken: %v, want ErrInvalidOptions", err)
	}
}

func TestShutdownEndsSession(t *testing.T) {
	_, srv := newTestHost(t, Options{})
	c := open(t, srv)
	handshake(t, c, testSecret, "tools")
	send(t, c, &a2e.Shutdown{Reason: "done"})
	if _, err := c.Next(testCtx(t)); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("after shutdown: %v, want the stream closed", err)
	}
	status, _, _ := c.Send(testCtx(t), []byte(`{"type":"ping","id":"p"}`))
	if status != http.StatusNotFound {
		t.Errorf("send after shutdown: %d, want 404", status)
	}
}

func TestStaleSessionsAreReaped(t *testing.T) {
	clock := testNow
	now := func() time.Time { return clock }
	_, srv := newTestHost(t, Options{Now: now, MaxSessions: 2, HandshakeTimeout: time.Minute, IdleTimeout: time.Hour})
	ready := open(t, srv)
	handshake(t, ready, testSecret, "tools")
	if _, err := NewSession(testCtx(t), srv.Client(), srv.URL); err != nil { // never handshakes
		t.Fatal(err)
	}
	if _, err := NewSession(testCtx(t), srv.Client(), srv.URL); err == nil {
		t.Fatal("a third session fit in MaxSessions 2")
	}
	clock = clock.Add(time.Minute) // the unauthenticated session times out
	if _, err := NewSession(testCtx(t), srv.Client(), srv.URL); err != nil {
		t.Fatalf("after the handshake timeout: %v", err)
	}
	if status, _, _ := ready.Send(testCtx(t), []byte(`{"a2e":"1.0","type":"ping","id":"p"}`)); status != http.StatusAccepted {
		t.Errorf("the authenticated session was reaped: %d", status)
	}
	clock = clock.Add(time.Hour) // every session is idle now
	if _, err := NewSession(testCtx(t), srv.Client(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := ready.Send(testCtx(t), []byte(`{"a2e":"1.0","type":"ping","id":"p"}`)); status != http.StatusNotFound {
		t.Errorf("an idle session survived: %d", status)
	}
}
