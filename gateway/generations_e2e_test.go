package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
)

// Upstream cards of each generation: v0.3 only, v1.0 only, and both (a
// v0.3 card that also declares a v1.0 interface).
const (
	capsJSON = `"capabilities":{"streaming":true,"extensions":[{"uri":"` + agentcard.ExtensionURI + `"}]}`
	cardV03  = `{"name":"extra","version":"1","url":"http://up.test/","preferredTransport":"JSONRPC","protocolVersion":"0.3",` + capsJSON + `}`
	cardV10  = `{"name":"extra","version":"1","supportedInterfaces":[{"url":"http://up.test/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` + capsJSON + `}`
	cardBoth = `{"name":"extra","version":"1","url":"http://up.test/","preferredTransport":"JSONRPC","protocolVersion":"0.3",` + capsJSON + `,"supportedInterfaces":[` +
		`{"url":"http://up.test/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://up.test/","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`
	streamEvt   = `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}` + "\n\n"
	streamEvt03 = `data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","contextId":"c","final":true,"status":{"state":"completed"}}}` + "\n\n"
)

// versioned is an upstream that serves card and records every JSON-RPC
// call with its A2A-Version header; it answers a stream with one event
// and anything else with a message, each in the shape of the method's
// generation (v0.3 for a name with a "/", v1.0 for the others).
type versioned struct {
	card string
	mu   sync.Mutex
	seen []string // "method A2A-Version"
}

func (v *versioned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, v.card)
		return
	}
	var req struct {
		Method string `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	v.mu.Lock()
	v.seen = append(v.seen, req.Method+" "+r.Header.Get("A2A-Version"))
	v.mu.Unlock()
	switch req.Method {
	case "SendStreamingMessage":
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, streamEvt)
	case "message/stream":
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, streamEvt03)
	case "message/send":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"r","role":"agent","parts":[{"kind":"text","text":"ok"}]}}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"r","role":"ROLE_AGENT","parts":[{"text":"ok"}]}}}`)
	}
}

func (v *versioned) calls() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.seen...)
}

const sendV1 = `{"jsonrpc":"2.0","id":1,"method":"%s","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`

// TestGenerationsOutsideTheCard: a call whose method generation or A2A-Version the
// upstream's card does not declare is refused with -32009 and never
// forwarded; one it declares reaches it, with its A2A-Version header. A
// v1.0 call to a v0.3-only upstream reaches it translated to v0.3, and a
// v0.3 call to a v1.0-only upstream translated to v1.0, when a2agen
// translates it; it is refused unforwarded when it does not.
func TestGenerationsOutsideTheCard(t *testing.T) {
	v01Send := `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t1","message":{"role":"user","parts":[{"type":"text","text":"hello"}]}}}`
	markdown := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"# hi","mediaType":"text/markdown"}]}}}`
	tests := []struct {
		name, card, body, version string
		wantCode                  int
		wantReason, wantSeen      string
	}{
		{"v0.1 tasks/send to a v0.3-only upstream", cardV03, v01Send, "", -32009, "version_mismatch", ""},
		{"v1.0 SendMessage to a v0.3-only upstream", cardV03, fmt.Sprintf(sendV1, "SendMessage"), "1.0", 0, "", "message/send 0.3"},
		{"v1.0 SendStreamingMessage to a v0.3-only upstream", cardV03, fmt.Sprintf(sendV1, "SendStreamingMessage"), "", 0, "", "message/stream 0.3"},
		{"v1.0 ListTasks to a v0.3-only upstream", cardV03, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, "1.0", -32009, "version_mismatch", ""},
		{"v1.0 SendMessage under A2A-Version 1.1 to a v0.3-only upstream", cardV03, fmt.Sprintf(sendV1, "SendMessage"), "1.1", -32009, "version_mismatch", ""},
		{"untranslatable v1.0 SendMessage to a v0.3-only upstream", cardV03, markdown, "1.0", -32602, "untranslatable_call", ""},
		{"v0.3 message/send to a v1.0-only upstream", cardV10, sendBody, "", 0, "", "SendMessage 1.0"},
		{"v0.3 message/stream to a v1.0-only upstream", cardV10, strings.Replace(sendBody, "message/send", "message/stream", 1), "0.3", 0, "", "SendStreamingMessage 1.0"},
		{"untranslatable v0.3 message/send to a v1.0-only upstream", cardV10, strings.Replace(sendBody, `"kind":"text"`, `"kind":"video"`, 1), "", -32602, "untranslatable_call", ""},
		{"v0.1 tasks/send to a v1.0-only upstream", cardV10, v01Send, "", -32009, "version_mismatch", ""},
		{"v1.0 SendMessage to a v1.0-only upstream", cardV10, fmt.Sprintf(sendV1, "SendMessage"), "1.0", 0, "", "SendMessage 1.0"},
		{"v1.0 SendStreamingMessage to a both-versions upstream", cardBoth, fmt.Sprintf(sendV1, "SendStreamingMessage"), "1.0", 0, "", "SendStreamingMessage 1.0"},
		{"v0.3 message/send to a both-versions upstream", cardBoth, sendBody, "", 0, "", "message/send "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := &versioned{card: tt.card}
			h := newHarness(t, rawUpstream{up}, nil)
			// A client resolves the card first, and the gateway holds it.
			resolveCard(t, h.srv.URL+"/a2a/extra/.well-known/agent-card.json")
			var hdr []string
			if tt.version != "" {
				hdr = []string{"A2A-Version", tt.version}
			}
			resp, b := h.post("extra", "alice-dev-key", tt.body, hdr...)
			if tt.wantCode != 0 {
				wantCode(t, decodeRPC(t, b), tt.wantCode, tt.wantReason)
				if got := up.calls(); len(got) != 0 {
					t.Fatalf("a refused call reached the upstream: %v", got)
				}
				return
			}
			if resp.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
				t.Fatalf("answer %d %s", resp.StatusCode, b)
			}
			if got := up.calls(); len(got) != 1 || got[0] != tt.wantSeen {
				t.Fatalf("upstream saw %q, want [%q]", got, tt.wantSeen)
			}
		})
	}
}

// TestV1EndToEnd speaks v1.0 through the gateway to the documents agent:
// SendMessage answers {"task":…}, SendStreamingMessage streams
// StreamResponse events, GetTask answers the v1.0 task; the same calls in
// v0.3 keep the v0.3 shapes.
func TestV1EndToEnd(t *testing.T) {
	h := newHarness(t, nil, nil)
	v1 := []string{"A2A-Version", "1.0"}
	_, b := h.post("documents", "alice-dev-key", fmt.Sprintf(sendV1, "SendMessage"), v1...)
	var send struct {
		Result struct {
			Task *struct {
				Kind      *string `json:"kind"`
				Status    struct{ State string }
				Artifacts []struct{ Parts []map[string]any }
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &send); err != nil || send.Result.Task == nil || send.Result.Task.Kind != nil ||
		send.Result.Task.Status.State != "TASK_STATE_COMPLETED" || len(send.Result.Task.Artifacts) != 1 ||
		send.Result.Task.Artifacts[0].Parts[0]["text"] == nil || send.Result.Task.Artifacts[0].Parts[0]["kind"] != nil {
		t.Fatalf("v1.0 SendMessage answer: %s", b)
	}
	events := h.streamEvents(fmt.Sprintf(sendV1, "SendStreamingMessage"), v1...)
	var members []string
	for _, ev := range events {
		for k := range ev {
			members = append(members, k)
		}
	}
	if strings.Join(members, " ") != "task statusUpdate artifactUpdate statusUpdate" {
		t.Fatalf("v1.0 stream events: %v", events)
	}
	taskID, _ := events[0]["task"].(map[string]any)["id"].(string)
	status := events[1]["statusUpdate"].(map[string]any)
	if status["status"].(map[string]any)["state"] != "TASK_STATE_WORKING" || taskID == "" || status["taskId"] != taskID {
		t.Fatalf("v1.0 events: %v", events)
	}
	_, b = h.post("documents", "alice-dev-key", `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"`+taskID+`"}}`, v1...)
	r := decodeRPC(t, b)
	var task map[string]any
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task["id"] != taskID || task["kind"] != nil ||
		!strings.HasPrefix(fmt.Sprint(task["status"].(map[string]any)["state"]), "TASK_STATE_") {
		t.Fatalf("v1.0 GetTask answer: %s", b)
	}
	_, b = h.post("documents", "alice-dev-key", sendBody)
	if r := decodeRPC(t, b); r.Error != nil || !strings.Contains(string(r.Result), `"kind":"task"`) {
		t.Fatalf("v0.3 message/send answer: %s", b)
	}
}

// streamEvents posts a streaming call to the documents agent and returns
// each event's result.
func (h *harness) streamEvents(body string, hdr ...string) []map[string]any {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/a2a/documents", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer alice-dev-key")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			h.t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, ev.Result)
	}
	return out
}

// resolveCard fetches a served card, as a client resolving it would.
func resolveCard(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("card: %v %v", resp, err)
	}
	_ = resp.Body.Close()
}

// TestGenerationsFirstCall: a read outside the card's range is refused
// even as the very first call the gateway sees for the agent, before any
// client resolved its card: the gateway fetches the card to check it.
func TestGenerationsFirstCall(t *testing.T) {
	tests := []struct{ name, card, body, version string }{
		{"v1.0 ListTasks to a v0.3-only upstream", cardV03, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, "1.0"},
		{"v0.2 tasks/get to a v1.0-only upstream", cardV10, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t1"}}`, "0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := &versioned{card: tt.card}
			h := newHarness(t, rawUpstream{up}, func(cfg *config.Config) { cfg.Agents[1].TaskOwnership = config.TaskOwnershipOff })
			var hdr []string
			if tt.version != "" {
				hdr = []string{"A2A-Version", tt.version}
			}
			_, b := h.post("extra", "alice-dev-key", tt.body, hdr...)
			wantCode(t, decodeRPC(t, b), -32009, "version_mismatch")
			if got := up.calls(); len(got) != 0 {
				t.Fatalf("a refused call reached the upstream: %v", got)
			}
		})
	}
}
