package gateway_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// postCounter counts the JSON-RPC calls (POSTs) that reach an upstream.
type postCounter struct {
	next http.Handler
	n    atomic.Int64
}

func (c *postCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		c.n.Add(1)
	}
	c.next.ServeHTTP(w, r)
}

// newNotesHarness fronts the notes agent, built on the A2A Go SDK alone,
// in its echo mode (it repeats every storage id it touched in results,
// artifacts, status messages and metadata), as "notes" with gated
// messaging and the quickstart policy.
func newNotesHarness(t *testing.T) (*harness, *postCounter) {
	t.Helper()
	agent, err := notes.New(notes.Options{BaseURL: "http://127.0.0.1:9104/", Logger: slog.New(slog.DiscardHandler), Now: time.Now, EchoIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	counter := &postCounter{next: agent}
	h := newHarness(t, rawUpstream{counter}, func(cfg *config.Config) {
		cfg.Agents = slices.DeleteFunc(cfg.Agents, func(a config.Agent) bool { return a.Name == "notes" })
		a := &cfg.Agents[1]
		a.Name, a.Principal = "notes", "agent:notes"
		a.Messages = &config.Messages{RequireCapability: true, Operation: "read", AgentEnforcesOperations: true}
		a.Skills = map[string]string{"notes.read": "read", "notes.write": "write"}
		a.Grants = []policy.Grant{{ID: "notes:read", Operations: []string{"read"}, Attenuable: true},
			{ID: "notes:write", Operations: []string{"write"}, Attenuable: true, Requires: []string{"notes:read"}}}
		a.Catalog = []policy.Resource{
			{ID: "notes/team-standup", Collection: "team", DisplayName: "Team stand-up"},
			{ID: "notes/alice-groceries", Collection: "personal", DisplayName: "Alice's groceries", Attributes: map[string]string{"owner": "alice"}},
			{ID: "notes/bob-ideas", Collection: "personal", DisplayName: "Bob's ideas", Attributes: map[string]string{"owner": "bob"}},
		}
	})
	return h, counter
}

// notesCall posts one call to the notes agent and returns the raw body.
func (h *harness) notesCall(bearer, method string, params any, hdr ...string) []byte {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 5, "method": method, "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	_, b := h.post("notes", bearer, string(body), hdr...)
	return b
}

// noteMessage is a message with text, naming the capability capID and
// skill in its metadata under the extension's URI (when not empty).
func noteMessage(text, capID, skill, taskID string) map[string]any {
	msg := map[string]any{"kind": "message", "role": "user", "messageId": "m-" + text,
		"parts": []map[string]any{{"kind": "text", "text": text}}}
	ext := map[string]any{}
	if capID != "" {
		ext["capabilityId"] = capID
	}
	if skill != "" {
		ext["skill"] = skill
	}
	if len(ext) > 0 {
		msg["metadata"] = map[string]any{agentcard.ExtensionURI: ext}
	}
	if taskID != "" {
		msg["taskId"] = taskID
	}
	return map[string]any{"message": msg}
}

func (h *harness) notesCapability(bearer, collection string, grants ...string) issued {
	h.t.Helper()
	r := decodeRPC(h.t, h.notesCall(bearer, "a2a/capabilities/request", map[string]any{
		"grants": grants, "resourceQuery": map[string]any{"collection": collection}}))
	var res struct {
		Capabilities []issued `json:"capabilities"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res.Capabilities) == 0 {
		h.t.Fatalf("issuance: %+v %s", r.Error, r.Result)
	}
	return res.Capabilities[0]
}

// noStorageIDs fails when body names any note's storage id.
func noStorageIDs(t *testing.T, what string, body []byte) {
	t.Helper()
	if strings.Contains(string(body), "notes/") || strings.Contains(string(body), `notes\/`) {
		t.Errorf("%s: the caller saw a storage id: %s", what, body)
	}
}

// TestNotesAgentBehindGatedMessaging drives a real A2A SDK agent that has
// never heard of capabilities through the gateway, as issue #14's tests
// list them.
func TestNotesAgentBehindGatedMessaging(t *testing.T) {
	h, agent := newNotesHarness(t)
	refused := func(name string, call func() []byte, code int) {
		t.Helper()
		before := agent.n.Load()
		body := call()
		if r := decodeRPC(t, oneEvent(body)); r.Error == nil || r.Error.Code != code {
			t.Errorf("%s: got %s, want code %d", name, body, code)
		}
		if agent.n.Load() != before {
			t.Errorf("%s: the agent received the refused call", name)
		}
	}
	refused("no capability", func() []byte {
		return h.notesCall("alice-dev-key", "message/send", noteMessage("read my notes", "", "", ""))
	}, jsonrpc.CodeCapabilityRequired)
	alice := h.notesCapability("alice-dev-key", "personal", "notes:read")
	groceries := alice.handle("Alice's groceries")

	body := h.notesCall("alice-dev-key", "message/send", noteMessage("read "+groceries, alice.ID, "notes.read", ""))
	r := decodeRPC(t, body)
	var task struct {
		ID     string `json:"id"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.Status.State != "completed" {
		t.Fatalf("capable message: %s", body)
	}
	noStorageIDs(t, "send", body)
	// The agent echoed the id in its metadata, artifact and status message
	// as well as the history: each became the caller's handle.
	if n := strings.Count(string(body), groceries); n < 4 || !strings.Contains(string(body), "milk") {
		t.Errorf("answer lacks the note or names its handle %d times: %s", n, body)
	}

	stream := h.notesCall("alice-dev-key", "message/stream", noteMessage("read "+groceries, alice.ID, "notes.read", ""))
	if strings.Count(string(stream), "data:") < 2 {
		t.Fatalf("stream: %s", stream)
	}
	noStorageIDs(t, "stream", stream)

	refused("skill out of scope", func() []byte {
		return h.notesCall("alice-dev-key", "message/send", noteMessage("append "+groceries+": butter", alice.ID, "notes.write", ""))
	}, jsonrpc.CodeOperationNotPermitted)
	bob := h.notesCapability("bob-dev-key", "team", "notes:read")
	ext := map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": bob.ID}}
	refused("another principal's tasks/get", func() []byte {
		return h.notesCall("bob-dev-key", "tasks/get", map[string]any{"id": task.ID, "metadata": ext})
	}, -32001)

	got := h.notesCall("alice-dev-key", "tasks/get", map[string]any{"id": task.ID}, "A2A-Capability", alice.Token)
	if r := decodeRPC(t, got); r.Error != nil {
		t.Fatalf("owner's tasks/get: %s", got)
	}
	noStorageIDs(t, "tasks/get", got)

	if r := decodeRPC(t, h.notesCall("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": alice.ID})); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	refused("follow-up message after revocation", func() []byte {
		return h.notesCall("alice-dev-key", "message/send", noteMessage("read "+groceries, alice.ID, "notes.read", task.ID))
	}, jsonrpc.CodeCapabilityRevoked)
	aliceExt := map[string]any{agentcard.ExtensionURI: map[string]any{"capabilityId": alice.ID}}
	refused("resubscribe after revocation", func() []byte {
		return h.notesCall("alice-dev-key", "tasks/resubscribe", map[string]any{"id": task.ID, "metadata": aliceExt})
	}, jsonrpc.CodeCapabilityRevoked)
}
