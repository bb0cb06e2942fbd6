package a2afront

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// A world for gated messaging: notes, an agent that knows nothing of
// capabilities, fronted with gated messaging and a catalog; plain, an
// agent with a whole-agent grant; noresolve, an agent with neither a
// catalog nor a resolution hook.
const gatedConfig = `
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
agents:
  - name: notes
    url: %[1]s/notes
    messages: {require_capability: true, operation: read, agent_enforces_operations: true}
    grants:
      - {id: "notes:read", operations: [read], attenuable: true}
      - {id: "notes:write", operations: [write], attenuable: true}
    skills: {notes.read: read, notes.write: write}
    catalog:
      - {id: notes/team-standup, collection: team, display_name: Team standup}
      - {id: notes/team-retro, collection: team, display_name: Team retro}
      - {id: notes/alice-diary, collection: personal, display_name: Alice's diary}
  - name: plain
    url: %[1]s/plain
    messages: {require_capability: true, operation: use}
    grants:
      - {id: "plain:use", operations: [use], attenuable: true, whole_agent: true}
  - name: noresolve
    url: %[1]s/noresolve
    grants:
      - {id: "docs:read", operations: [read], attenuable: true}
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com"}]
policy: {file: policy.yaml}
`

const gatedPolicy = `
version: 1
rules:
  - id: finance-team-notes
    principals: {groups: [finance]}
    agents: [notes]
    grants: ["notes:read", "notes:write"]
    resources: {collection: team}
    max_ttl: 1h
  - id: contractors-read-team-notes
    principals: {groups: [contractors]}
    agents: [notes]
    grants: ["notes:read"]
    resources: {collection: team}
  - id: finance-plain
    principals: {groups: [finance]}
    agents: [plain]
    grants: ["plain:use"]
  - id: finance-plain-collection
    principals: {groups: [contractors]}
    agents: [plain]
    grants: ["plain:use"]
    resources: {collection: team}
  - id: finance-noresolve
    principals: {groups: [finance]}
    agents: [noresolve]
    grants: ["docs:read"]
`

func gatedCatalog() policy.Catalog {
	g := func(id string, ops ...string) policy.Grant {
		return policy.Grant{ID: id, Operations: ops, Attenuable: true}
	}
	return policy.Catalog{Agents: map[string]policy.AgentCatalog{
		"notes": {Grants: map[string]policy.Grant{"notes:read": g("notes:read", "read"), "notes:write": g("notes:write", "write")},
			Skills: map[string]string{"notes.read": "read", "notes.write": "write"}},
		"plain":     {Grants: map[string]policy.Grant{"plain:use": g("plain:use", "use")}},
		"noresolve": {Grants: map[string]policy.Grant{"docs:read": g("docs:read", "read")}},
	}}
}

// echoAgent answers like an agent that echoes every storage id it
// touched: in the task's status message, its artifacts (text and data)
// and, for streams, in every event. It names an id the caller holds no
// handle for too.
func echoAgent(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage, body []byte) bool {
	switch {
	case method == sep.MethodResolve && strings.HasSuffix(r.URL.Path, "/noresolve"):
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
		return true
	case method == "message/send" || method == "tasks/get":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, echoTask(body))
		return true
	case method == "message/stream" || method == "tasks/resubscribe":
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 {
			// The event id and a comment name storage ids too.
			fmt.Fprintf(w, ": touched notes/alice-diary\nid: notes/team-standup/%d\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", i, id, echoTask(body))
		}
		return true
	}
	return false
}

// echoTask is a task whose texts and data echo the message's text and
// the ids the agent touched.
func echoTask(body []byte) string {
	var env struct {
		Params struct {
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &env)
	var said []string
	for _, p := range env.Params.Message.Parts {
		said = append(said, p.Text)
	}
	echo, _ := json.Marshal("you said: " + strings.Join(said, " "))
	return `{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"completed","message":{"kind":"message","role":"agent","messageId":"m2",` +
		`"parts":[{"kind":"text","text":"opened notes/team-standup; notes/alice-diary is private"}]}},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":` + string(echo) + `},{"kind":"data","data":{"id":"notes\/team-standup","all":["notes/team-retro"]}}]}]}`
}

func newGatedFixture(tb testing.TB) *fixture {
	tb.Helper()
	return newFixtureWith(tb, gatedConfig, []byte(gatedPolicy), gatedCatalog(), &recorder{answer: echoAgent})
}

// post sends one JSON-RPC body to agent as the holder of key, with extra
// headers, through the front's routes, and returns the status and body.
func (fx *fixture) post(tb testing.TB, key, agent, body string, header map[string]string) (int, string) {
	tb.Helper()
	r := chi.NewRouter()
	fx.front.Mount(r)
	req := httptest.NewRequest(http.MethodPost, "/a2a/"+agent, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// request issues grants of agent to the holder of key, with an optional
// resource query, and returns the capabilities or the refusal.
func (fx *fixture) request(tb testing.TB, key, agent, grants, query string) ([]sep.Capability, *jsonrpc.Error) {
	tb.Helper()
	params := `{"grants":` + grants
	if query != "" {
		params += `,"resourceQuery":` + query
	}
	_, body := fx.post(tb, key, agent, `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":`+params+`}}`, nil)
	var env struct {
		Result *sep.CapabilitiesResult `json:"result"`
		Error  *jsonrpc.Error          `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		tb.Fatalf("answer %s: %v", body, err)
	}
	if env.Error != nil {
		return nil, env.Error
	}
	return env.Result.Capabilities, nil
}

// errorCode returns the JSON-RPC error code of an answer, 0 for a result.
// An answer sent as a stream of one event is read from its event.
func errorCode(tb testing.TB, body string) int {
	tb.Helper()
	if event, ok := strings.CutPrefix(body, "data: "); ok {
		body = event
	}
	var env struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		tb.Fatalf("answer %q: %v", body, err)
	}
	if env.Error == nil {
		return 0
	}
	return env.Error.Code
}
