package a2efront_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2e"
)

func TestToolCallAnsweredByHost(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools", "memory")
	id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hello"}, CorrelationID: "k1"}, http.StatusAccepted)
	m := next(t, c)
	resp, ok := m.Body.(*a2e.ToolCallResp)
	if !ok || resp.ReqID != id || !resp.OK || resp.Result.(map[string]any)["text"] != "hello" {
		t.Fatalf("got %s", m.Raw)
	}
	send(t, c, &a2e.MemoryStoreReq{MemoryID: "notes", Entries: []a2e.MemoryEntry{{Key: "q1", Value: "draft"}}}, http.StatusAccepted)
	if st, ok := next(t, c).Body.(*a2e.MemoryStoreResp); !ok || st.Stored != 1 {
		t.Errorf("memory/store/resp = %+v", st)
	}
	send(t, c, &a2e.Ping{}, http.StatusAccepted)
	if _, ok := next(t, c).Body.(*a2e.Pong); !ok {
		t.Error("ping was not answered by the host")
	}
}

func TestEnvRefusedAndNeverForwarded(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools", "memory", "env")
	for _, body := range []a2e.Body{&a2e.EnvResetReq{}, &a2e.EnvStepReq{Action: "right"}, &a2e.Generic{Type: "chain/run/req"}} {
		id := nextID()
		status, raw, err := c.Send(testCtx(t), mustEncode(t, id, body))
		if err != nil || status != http.StatusAccepted || !strings.Contains(string(raw), `"code":"capability_missing"`) {
			t.Fatalf("send %T: %d %s %v", body, status, raw, err)
		}
		m := next(t, c)
		want := `"req_id":"` + id + `","code":"capability_missing"`
		if e, ok := m.Body.(*a2e.Error); !ok || e.Retryable || !strings.Contains(string(m.Raw), want) {
			t.Errorf("got %s, want a non-retryable capability_missing error", m.Raw)
		}
	}
	if got := w.lab.Recorder().Types(); len(got) != 1 || got[0] != a2e.TypeHandshakeReq {
		t.Errorf("host received %v, want only the handshake", got)
	}
	refusals := w.audit.events("a2e.refusal")
	if len(refusals) != 3 || refusals[0]["capability"] != "env" || refusals[0]["type"] != "env/reset/req" ||
		refusals[0]["principal"] != "user:alice@example.com" || refusals[2]["capability"] != "chains" {
		t.Errorf("audit = %v", refusals)
	}
}

func mustEncode(t testing.TB, id string, body a2e.Body) []byte {
	t.Helper()
	line, err := a2e.Encode(a2e.NewEnvelope("", id, testNow, a2e.KeyA2E, "1.0"), body)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestBadLines sends hostile lines before and after the handshake; none
// reaches the host and none ends the session.
func TestBadLines(t *testing.T) {
	w := newWorld(t, worldOptions{config: func(c *a2efrontConfig) { c.MaxLineBytes = 512 }})
	c := w.open(t)
	before := []struct {
		line       string
		wantStatus int
		wantCode   string
	}{
		{`{"a2e":"1.0","type":"tool/call/req","id":"t1","tool_name":"echo"}`, http.StatusAccepted, a2e.CodeUnauthorized},
		{`{"a2e":"1.0","type":"ping","id":"p1"}`, http.StatusAccepted, a2e.CodeUnauthorized},
		{`{"a2e":"1.0","type":"handshake/resp","id":"r1","req_id":"x","ok":true,"accepted_caps":[{"capability":"env","enabled":true}]}`, http.StatusAccepted, a2e.CodeInvalidMessage},
	}
	after := []struct {
		line       string
		wantStatus int
		wantCode   string
	}{
		{"this is not json", http.StatusAccepted, a2e.CodeParseError},
		{`{"a2e":"1.0","type":"tool/call/req","id":"t2","tool_name":"echo"`, http.StatusAccepted, a2e.CodeParseError},
		{`{"a2e":"1.0","type":"tool/call/req","id":"t3","tool_name":"echo","type":"env/step/req"}`, http.StatusAccepted, a2e.CodeParseError},
		{`{"a2e":"1.0","type":"tool/call/req","id":"t4","tool_name":"echo","Type":"env/step/req"}`, http.StatusAccepted, a2e.CodeParseError},
		{`{"a2e":"1.0","TYPE":"env/step/req","id":"t5"}`, http.StatusAccepted, a2e.CodeInvalidMessage},
		{`{"a2e":"1.0","type":"teleport/req","id":"t6"}`, http.StatusAccepted, a2e.CodeInvalidMessage},
		{`{"a2e":"1.0","type":"tools/call/req","id":"t7"}`, http.StatusAccepted, a2e.CodeInvalidMessage},
		{`{"a2e":"1.0","type":"tool/call/req","id":"t8"}`, http.StatusAccepted, a2e.CodeInvalidMessage},
		{"{\"a2e\":\"1.0\",\"type\":\"ping\",\"id\":\"\xff\"}", http.StatusAccepted, a2e.CodeParseError},
		{`{"a2e":"1.0","type":"tool/call/req","id":"t9","tool_name":"echo","arguments":{"text":"` + strings.Repeat("x", 600) + `"}}`,
			http.StatusRequestEntityTooLarge, a2e.CodeMessageTooLarge},
	}
	for _, tc := range before {
		if status, body := sendRaw(t, c, tc.line); status != tc.wantStatus {
			t.Fatalf("send %.50q: %d %s", tc.line, status, body)
		}
		expectError(t, c, "", tc.wantCode)
	}
	handshake(t, c, aliceKey, "tools")
	for _, tc := range after {
		if status, body := sendRaw(t, c, tc.line); status != tc.wantStatus {
			t.Fatalf("send %.50q: %d %s, want %d", tc.line, status, body, tc.wantStatus)
		}
		expectError(t, c, "", tc.wantCode)
	}
	// The session still works.
	id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "still here"}}, http.StatusAccepted)
	if r, ok := next(t, c).Body.(*a2e.ToolCallResp); !ok || r.ReqID != id {
		t.Errorf("after the bad lines: %+v", r)
	}
	if got := w.lab.Recorder().Types(); len(got) != 2 {
		t.Errorf("host received %v, want only the handshake and the echo", got)
	}
}

func TestMaxParallel(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	slow := lab.NewToolPlugin(lab.PluginInfo{Name: "slow-tools", Priority: 10}, map[string]lab.Tool{
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
	// The host allows 4 in parallel; the gateway caps sessions at 2.
	w := newWorld(t, worldOptions{
		lab:    lab.Options{MaxParallel: 4, Plugins: append(lab.DefaultPlugins(nil), slow)},
		config: func(c *a2efrontConfig) { c.MaxParallel = 2 },
	})
	c := w.open(t)
	if resp, _ := handshake(t, c, aliceKey, "tools"); resp.MaxParallel != 2 {
		t.Fatalf("max_parallel = %d, want the gateway's cap 2", resp.MaxParallel)
	}
	first := send(t, c, &a2e.ToolCallReq{ToolName: "wait"}, http.StatusAccepted)
	second := send(t, c, &a2e.ToolCallReq{ToolName: "wait"}, http.StatusAccepted)
	<-started
	<-started
	third := nextID()
	status, body, _ := c.Send(testCtx(t), mustEncode(t, third, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}))
	if status != http.StatusAccepted || !strings.Contains(string(body), a2e.CodeTooManyRequests) {
		t.Fatalf("third call: %d %s", status, body)
	}
	if e := expectError(t, c, third, a2e.CodeTooManyRequests); !e.Retryable {
		t.Error("too_many_requests must be retryable")
	}
	// Pings and a duplicate id do not take a slot.
	send(t, c, &a2e.Ping{}, http.StatusAccepted)
	next(t, c)
	if status, _, _ := c.Send(testCtx(t), mustEncode(t, first, &a2e.ToolCallReq{ToolName: "wait"})); status != http.StatusAccepted {
		t.Fatal(status)
	}
	expectError(t, c, first, a2e.CodeInvalidMessage) // an id already in flight

	release <- struct{}{}
	if r := next(t, c).Body.(*a2e.ToolCallResp); r.ReqID != first && r.ReqID != second {
		t.Fatalf("response to %s", r.ReqID)
	}
	// The response freed a slot.
	fourth := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "x"}}, http.StatusAccepted)
	if r := next(t, c).Body.(*a2e.ToolCallResp); r.ReqID != fourth {
		t.Fatalf("response to %s, want %s", r.ReqID, fourth)
	}
	close(release)
	next(t, c)
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 3 {
		t.Errorf("host received %d tool calls, want 3", n)
	}
}

func TestTransportErrors(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	other, err := lab.NewSession(testCtx(t), nil, w.fronts[0].URL+"/a2e/other/")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path, session string
		wantStatus                  int
		wantError                   string
	}{
		{"send without session", http.MethodPost, "/a2e/lab/send", "", http.StatusBadRequest, "missing_session_id"},
		{"stream without session", http.MethodGet, "/a2e/lab/stream", "", http.StatusBadRequest, "missing_session_id"},
		{"unknown session", http.MethodPost, "/a2e/lab/send", strings.Repeat("ab", 16), http.StatusNotFound, "unknown_session"},
		{"malformed session id", http.MethodPost, "/a2e/lab/send", "../../x", http.StatusNotFound, "unknown_session"},
		{"unknown host", http.MethodPost, "/a2e/nope/send", c.SessionID, http.StatusNotFound, "unknown_host"},
		{"unknown host session", http.MethodPost, "/a2e/nope/session", "", http.StatusNotFound, "unknown_host"},
		{"another host's session", http.MethodPost, "/a2e/lab/send", other.SessionID, http.StatusNotFound, "unknown_session"},
		{"another host's stream", http.MethodGet, "/a2e/other/stream", c.SessionID, http.StatusNotFound, "unknown_session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, w.fronts[0].URL+tc.path, strings.NewReader(`{"a2e":"1.0","type":"ping","id":"p"}`))
			if tc.session != "" {
				req.Header.Set(a2efrontSessionHeader, tc.session)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := readAll(t, resp)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(body, `"error":"`+tc.wantError+`"`) ||
				resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, body, tc.wantStatus, tc.wantError)
			}
		})
	}
	if n := w.lab.Recorder().Count(); n != 0 {
		t.Errorf("host received %d messages", n)
	}
}

func TestSessionLimit(t *testing.T) {
	w := newWorld(t, worldOptions{config: func(c *a2efrontConfig) { c.MaxSessions = 1 }})
	w.open(t)
	if _, err := lab.NewSession(testCtx(t), nil, w.base(0)); err == nil || !strings.Contains(err.Error(), "too_many_sessions") {
		t.Errorf("second session: %v, want too_many_sessions", err)
	}
}

func TestShutdownEndsSession(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools")
	send(t, c, &a2e.Shutdown{Reason: "done"}, http.StatusAccepted)
	if status, _ := sendRaw(t, c, `{"a2e":"1.0","type":"ping","id":"p"}`); status != http.StatusNotFound {
		t.Errorf("send after shutdown: %d, want 404", status)
	}
}

// TestRefusalsWaitForTheStream sends before any stream is open: the
// gateway's answer is queued and delivered when the stream opens.
func TestRefusalsWaitForTheStream(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c, err := lab.NewSession(testCtx(t), nil, w.base(0))
	if err != nil {
		t.Fatal(err)
	}
	send(t, c, &a2e.HandshakeReq{AgentCaps: []string{"tools"}, AuthToken: "wrong"}, http.StatusAccepted)
	if err := c.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if resp, ok := next(t, c).Body.(*a2e.HandshakeResp); !ok || resp.Reason != a2e.ReasonAuthFailed {
		t.Errorf("got %+v, want the queued auth_failed", resp)
	}
}
