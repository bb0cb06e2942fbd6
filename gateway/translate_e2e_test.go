package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
)

// scripted is a v0.3-only upstream that answers each method with a
// scripted body (an SSE body for the streaming methods) and records each
// call's method, headers and params.
type scripted struct {
	answers map[string]string
	mu      sync.Mutex
	seen    []scriptedCall
}

type scriptedCall struct {
	method string
	header http.Header
	params map[string]any
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, cardV03)
		return
	}
	var req struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	s.seen = append(s.seen, scriptedCall{req.Method, r.Header.Clone(), req.Params})
	s.mu.Unlock()
	ct := "application/json"
	if strings.HasSuffix(req.Method, "stream") {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = io.WriteString(w, s.answers[req.Method])
}

func (s *scripted) calls() []scriptedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]scriptedCall(nil), s.seen...)
}

// translatedHarness fronts up as agent "extra", task ownership off (the
// scripted tasks are never started through the gateway).
func translatedHarness(t *testing.T, up *scripted) *harness {
	t.Helper()
	return newHarness(t, rawUpstream{up}, func(c *config.Config) {
		for i := range c.Agents {
			c.Agents[i].TaskOwnership = config.TaskOwnershipOff
		}
	})
}

const task03 = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}}`

// TestTranslatedCallReachesTheAgentInV03 checks what a v0.3-only agent
// receives for a v1.0 SendMessage: the v0.3 method, params and headers.
func TestTranslatedCallReachesTheAgentInV03(t *testing.T) {
	up := &scripted{answers: map[string]string{"message/send": `{"jsonrpc":"2.0","id":1,"result":` + task03 + `}`}}
	h := translatedHarness(t, up)
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER",` +
		`"parts":[{"text":"hello","mediaType":"text/plain"}]},"configuration":{"returnImmediately":true}}}`
	_, b := h.post("extra", aliceKey, body, "A2A-Version", "1.0", "A2A-Extensions", agentcard.ExtensionURI)
	r := decodeRPC(t, b)
	var res map[string]map[string]any
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res["task"]["id"] != "t1" || res["task"]["kind"] != nil {
		t.Fatalf("answer %s, want the v1.0 {\"task\":…}", b)
	}
	calls := up.calls()
	if len(calls) != 1 {
		t.Fatalf("upstream saw %d calls", len(calls))
	}
	c := calls[0]
	msg, _ := c.params["message"].(map[string]any)
	cfg, _ := c.params["configuration"].(map[string]any)
	if c.method != "message/send" || msg["kind"] != "message" || msg["role"] != "user" || cfg["blocking"] != false {
		t.Errorf("upstream saw %s %v", c.method, c.params)
	}
	if c.header.Get("A2A-Version") != "0.3" || c.header.Get("X-A2A-Extensions") != agentcard.ExtensionURI {
		t.Errorf("upstream headers A2A-Version %q, X-A2A-Extensions %q", c.header.Get("A2A-Version"), c.header.Get("X-A2A-Extensions"))
	}
}

// TestTranslatedAnswerRefused checks that an answer v1.0 cannot express
// reaches the caller as an error naming the member, never half-translated.
func TestTranslatedAnswerRefused(t *testing.T) {
	up := &scripted{answers: map[string]string{
		"message/send": `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","status":{"state":"paused"}}}`,
	}}
	h := translatedHarness(t, up)
	_, b := h.post("extra", aliceKey, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[]}}}`)
	r := decodeRPC(t, b)
	wantCode(t, r, -32603, "untranslatable_answer")
	if r.Error.Data["member"] != "result.status.state" {
		t.Errorf("refusal names %v, want result.status.state", r.Error.Data["member"])
	}
}

// TestTranslatedStream checks a stream event by event: each v0.3 event
// arrives as a v1.0 StreamResponse, and one v1.0 cannot express ends the
// stream with an error in its place.
func TestTranslatedStream(t *testing.T) {
	ev := func(result string) string { return `data: {"jsonrpc":"2.0","id":1,"result":` + result + "}\n\n" }
	up := &scripted{answers: map[string]string{"message/stream": ev(task03) +
		ev(`{"kind":"status-update","taskId":"t1","contextId":"c1","final":false,"status":{"state":"working"}}`) +
		ev(`{"kind":"artifact-update","taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"kind":"data","data":[1]}]}}`) +
		ev(`{"kind":"status-update","taskId":"t1","contextId":"c1","final":true,"status":{"state":"completed"}}`)}}
	h := translatedHarness(t, up)
	_, b := h.post("extra", aliceKey, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[]}}}`)
	events := sseData(t, b)
	if len(events) != 3 {
		t.Fatalf("got %d events, want 2 translated and the refusal: %s", len(events), b)
	}
	for i, member := range []string{"task", "statusUpdate"} {
		res, _ := events[i]["result"].(map[string]any)
		if len(res) != 1 || res[member] == nil {
			t.Errorf("event %d = %v, want {%q:…}", i, events[i], member)
		}
	}
	e, _ := events[2]["error"].(map[string]any)
	raw, _ := json.Marshal(e["data"])
	var data errorData // a v1.0 caller reads the refusal in v1.0's typed details
	if err := json.Unmarshal(raw, &data); err != nil || e["code"] != float64(-32603) || data["member"] != "result.artifact.parts[0].data" {
		t.Errorf("third event %v (%v), want the refusal of the array data part", events[2], err)
	}
}

// TestTranslatedBatch checks that each element of a batch is translated
// on its own: a v1.0 GetTask is, a v0.3 tasks/get is not.
func TestTranslatedBatch(t *testing.T) {
	up := &scripted{answers: map[string]string{"tasks/get": `{"jsonrpc":"2.0","id":1,"result":` + task03 + `}`}}
	h := translatedHarness(t, up)
	_, b := h.post("extra", aliceKey, `[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t1"}},`+
		`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"t1"}}]`)
	var answers []struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(b, &answers); err != nil || len(answers) != 2 {
		t.Fatalf("batch answer %s", b)
	}
	if answers[0].Result["kind"] != nil || answers[0].Result["id"] != "t1" || answers[1].Result["kind"] != "task" {
		t.Errorf("batch answers %s: want the v1.0 task, then the v0.3 one", b)
	}
	for _, c := range up.calls() {
		if c.method != "tasks/get" {
			t.Errorf("upstream saw %s", c.method)
		}
	}
}
