package a2efront_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestAliceHandshake is the seed's negotiation example through the
// gateway: alice (finance) asks lab for tools, memory, env and chains.
// Policy allows tools and memory; lab has no chains plugin.
func TestAliceHandshake(t *testing.T) {
	w := newWorld(t, worldOptions{now: func() time.Time { return testNow }})
	c := w.open(t)
	sendRaw(t, c, `{"a2e":"1.0","type":"handshake/req","id":"a1b2c3d4","ts":1716123456.789,"agent_id":"my-agent",`+
		`"agent_caps":["tools","memory","env","chains"],"auth_token":"`+aliceKey+`"}`)
	m := next(t, c)
	resp, _ := m.Body.(*a2e.HandshakeResp)
	if resp == nil || !resp.OK || resp.SessionID != c.SessionID || resp.MaxParallel != a2e.DefaultMaxParallel {
		t.Fatalf("handshake/resp = %s", m.Raw)
	}
	caps := capsByName(resp)
	for name, want := range map[string]struct {
		enabled bool
		reason  string
		plugin  string
	}{
		"tools":  {true, "", "basic-tools"},
		"memory": {true, "", "kv-memory"},
		"env":    {false, "denied by policy", ""},
		"chains": {false, "no plugin loaded", ""},
	} {
		got := caps[name]
		if got.Enabled != want.enabled || got.Reason() != want.reason || (want.plugin != "" && got.Metadata["name"] != want.plugin) {
			t.Errorf("%s = %+v, want enabled %v reason %q plugin %q", name, got, want.enabled, want.reason, want.plugin)
		}
	}
	if len(resp.AcceptedCaps) != 4 {
		t.Errorf("accepted_caps has %d entries, want every requested capability", len(resp.AcceptedCaps))
	}
	golden(t, "alice_handshake_resp.golden", normalize(m.Raw, m.ID, c.SessionID))

	// The host saw alice's request narrowed to policy, with its own secret.
	hs := w.hostSaw(a2e.TypeHandshakeReq)
	if len(hs) != 1 {
		t.Fatalf("host saw %d handshakes, want 1", len(hs))
	}
	var fwd struct {
		AgentCaps []string `json:"agent_caps"`
		AuthToken string   `json:"auth_token"`
		AgentID   string   `json:"agent_id"`
	}
	if err := json.Unmarshal(hs[0].Line, &fwd); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fwd.AgentCaps, []string{"tools", "memory"}) || fwd.AuthToken != labSecret || fwd.AgentID != "my-agent" {
		t.Errorf("host received %s", hs[0].Line)
	}

	audit := w.audit.events("a2e.handshake")
	if len(audit) != 1 || audit[0]["principal"] != "user:alice@example.com" || audit[0]["host"] != "lab" ||
		audit[0]["ok"] != true || audit[0]["policy_revision"] == "" {
		t.Fatalf("audit = %v", audit)
	}
	if d := audit[0]["denied"].(map[string]any); !strings.Contains(d["env"].(string), "denied by policy") || !strings.HasPrefix(d["chains"].(string), "no plugin loaded") {
		t.Errorf("audit denied = %v", d)
	}
}

// normalize replaces the random ids of a gateway message for a golden file.
func normalize(raw []byte, id, session string) []byte {
	return []byte(strings.NewReplacer(id, "<id>", session, "<session>").Replace(string(raw)) + "\n")
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestBobGetsToolsOnly(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	resp, _ := handshake(t, c, bobKey, "tools", "memory", "env")
	caps := capsByName(resp)
	if !resp.OK || !caps["tools"].Enabled || caps["memory"].Enabled || caps["env"].Enabled ||
		caps["memory"].Reason() != "denied by policy" {
		t.Fatalf("bob's handshake = %+v", resp)
	}
	id := send(t, c, &a2e.MemoryStoreReq{MemoryID: "m", Entries: []a2e.MemoryEntry{{Key: "k", Value: "v"}}}, http.StatusAccepted)
	if e := expectError(t, c, id, a2e.CodeCapabilityMissing); e.CapabilityName != "memory" || e.Retryable {
		t.Errorf("error = %+v", e)
	}
	if n := len(w.hostSaw(a2e.TypeMemoryStoreReq)); n != 0 {
		t.Errorf("host saw %d memory/store/req, want 0", n)
	}
}

func TestHandshakeRefusals(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		wantReason string
	}{
		{"unknown key", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"mallory-key"}`, a2e.ReasonAuthFailed},
		{"the host's own secret", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"` + labSecret + `"}`, a2e.ReasonAuthFailed},
		{"no token", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"]}`, a2e.ReasonAuthFailed},
		{"forged JWT", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."}`, a2e.ReasonAuthFailed},
		{"wrong version", `{"a2e":"2.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"` + aliceKey + `"}`, a2e.ReasonVersionMismatch},
		{"no version", `{"type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"` + aliceKey + `"}`, a2e.ReasonVersionMismatch},
		{"nothing allowed", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["env","chains"],"auth_token":"` + aliceKey + `"}`, a2e.ReasonNoCaps},
		{"nothing requested", `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":[],"auth_token":"` + aliceKey + `"}`, a2e.ReasonNoCaps},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, worldOptions{})
			c := w.open(t)
			if status, body := sendRaw(t, c, tc.line); status != http.StatusAccepted || !strings.Contains(body, tc.wantReason) {
				t.Fatalf("send: %d %s", status, body)
			}
			m := next(t, c)
			resp, ok := m.Body.(*a2e.HandshakeResp)
			if !ok || resp.OK || resp.Reason != tc.wantReason || resp.ReqID != "h1" {
				t.Fatalf("got %s, want ok:false %s", m.Raw, tc.wantReason)
			}
			if n := w.lab.Recorder().Count(); n != 0 {
				t.Errorf("host received %d messages, want none", n)
			}
			id := send(t, c, &a2e.ToolListReq{}, http.StatusAccepted)
			expectError(t, c, id, a2e.CodeUnauthorized)
			if a := w.audit.events("a2e.handshake"); len(a) != 1 || a[0]["ok"] != false || a[0]["reason"] != tc.wantReason {
				t.Errorf("audit = %v", a)
			}
		})
	}
}

// TestCallerTokenNeverReachesHost checks every byte the host received.
func TestCallerTokenNeverReachesHost(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	line := `{"a2e":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"` + aliceKey +
		`","x_note":"kept"}`
	if status, _ := sendRaw(t, c, line); status != http.StatusAccepted {
		t.Fatal(status)
	}
	if resp := next(t, c).Body.(*a2e.HandshakeResp); !resp.OK {
		t.Fatalf("handshake = %+v", resp)
	}
	send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}}, http.StatusAccepted)
	next(t, c)
	msgs := w.lab.Recorder().Messages()
	if len(msgs) != 2 {
		t.Fatalf("host received %d messages", len(msgs))
	}
	for _, m := range msgs {
		if bytes.Contains(m.Line, []byte(aliceKey)) {
			t.Errorf("the host received the caller's credential: %s", m.Line)
		}
	}
	if !bytes.Contains(msgs[0].Line, []byte(`"auth_token":"`+labSecret+`"`)) || !bytes.Contains(msgs[0].Line, []byte(`"x_note":"kept"`)) {
		t.Errorf("forwarded handshake = %s", msgs[0].Line)
	}
}

func TestVersionKeyIsEchoed(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	line := `{"version":"1.0","type":"handshake/req","id":"h1","agent_caps":["tools"],"auth_token":"` + aliceKey + `"}`
	sendRaw(t, c, line)
	m := next(t, c)
	if m.Key != a2e.KeyVersion || !bytes.Contains(m.Raw, []byte(`"version":"1.0"`)) || bytes.Contains(m.Raw, []byte(`"a2e"`)) {
		t.Errorf("handshake/resp = %s, want the version spelled \"version\"", m.Raw)
	}
	sendRaw(t, c, `{"a2e":"1.0","type":"env/step/req","id":"s1","action":"up"}`)
	if m := next(t, c); m.Key != a2e.KeyVersion {
		t.Errorf("refusal = %s, want the session's spelling", m.Raw)
	}
}

func TestSecondHandshakeRefused(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	handshake(t, c, aliceKey, "tools")
	id := send(t, c, &a2e.HandshakeReq{AgentCaps: []string{"tools", "memory"}, AuthToken: bobKey}, http.StatusAccepted)
	expectError(t, c, id, a2e.CodeInvalidMessage)
	if n := len(w.hostSaw(a2e.TypeHandshakeReq)); n != 1 {
		t.Errorf("host saw %d handshakes, want 1", n)
	}
}

func TestHandshakeAttemptsBounded(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c := w.open(t)
	for range a2efrontAttempts {
		send(t, c, &a2e.HandshakeReq{AgentCaps: []string{"tools"}, AuthToken: "guess"}, http.StatusAccepted)
		next(t, c)
	}
	status, body := sendRaw(t, c, `{"a2e":"1.0","type":"handshake/req","id":"h9","agent_caps":["tools"],"auth_token":"`+aliceKey+`"}`)
	if status != http.StatusNotFound {
		t.Errorf("handshake after %d failures: %d %s, want 404", a2efrontAttempts, status, body)
	}
}
