package a2afront

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// v1NamesConfig is the fixture's documents agent with task ownership
// off: the follow-ups below name tasks never started through the gateway.
const v1NamesConfig = `
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
agents:
  - name: documents
    url: %[1]s/
    task_ownership: "off"
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com"}]
policy: {file: policy.yaml}
`

// Upstream cards for the spelling tests: each generation, with the
// streaming and push capabilities the follow-ups need.
const (
	namesCaps      = `"capabilities":{"streaming":true,"pushNotifications":true}`
	namesCardV1    = `{"supportedInterfaces":[{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` + namesCaps + `}`
	namesCardBoth  = `{"supportedInterfaces":[{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://up/","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],` + namesCaps + `}`
	namesCardV03   = `{"url":"http://up/","protocolVersion":"0.3.0",` + namesCaps + `}`
	namesCardRange = `{"url":"http://up/","min_protocol_version":"0.1","max_protocol_version":"1.0",` + namesCaps + `}`
)

// v1Spellings are the v1 spellings the gateway accepts for the methods it
// forwards after reading the agent's card, with the v1.0 name a v1.0
// agent receives and the v0.3 name a v0.3 agent receives ("": none, the
// call is refused).
var v1Spellings = []struct{ caller, v1, v03, params string }{
	{"SubscribeToTask", "SubscribeToTask", "tasks/resubscribe", `{"id":"t1"}`},
	{"TaskResubscription", "SubscribeToTask", "tasks/resubscribe", `{"id":"t1"}`},
	{"TaskSubscription", "SubscribeToTask", "tasks/resubscribe", `{"id":"t1"}`},
	{"CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set",
		`{"taskId":"t1","id":"c1","url":"https://hooks.example.com/a2a"}`},
	{"SetTaskPushNotificationConfig", "CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set",
		`{"taskId":"t1","id":"c1","url":"https://hooks.example.com/a2a"}`},
	{"ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list", `{"taskId":"t1"}`},
	{"ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list", `{"taskId":"t1"}`},
	{"GetExtendedAgentCard", "GetExtendedAgentCard", "", `{}`},
	{"GetAuthenticatedExtendedCard", "GetExtendedAgentCard", "", `{}`},
	{"GetTask", "GetTask", "tasks/get", `{"id":"t1"}`},
}

// namesFixture is a fixture whose agent serves card.
func namesFixture(t *testing.T, card string) *fixture {
	t.Helper()
	data, err := readQuickstartPolicy()
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureWith(t, v1NamesConfig, data, quickstartCatalog(), &recorder{card: card})
}

// TestV1SpellingsForwardedAsV1Names: whatever v1 spelling the caller
// used, an agent that serves v1.0 receives the v1.0 name, in a body
// that is otherwise the caller's byte for byte; a v0.3-only agent
// receives the v0.3 name; a call a v0.3 agent cannot serve is refused
// and the agent sees nothing.
func TestV1SpellingsForwardedAsV1Names(t *testing.T) {
	cards := []struct{ name, card string }{
		{"v1.0 only", namesCardV1}, {"v1.0 and v0.3", namesCardBoth}, {"0.1 to 1.0", namesCardRange}, {"v0.3 only", namesCardV03},
	}
	for _, cd := range cards {
		fx := namesFixture(t, cd.card)
		for _, sp := range v1Spellings {
			for _, version := range []string{"", "1.0"} {
				t.Run(cd.name+"/"+sp.caller+"/"+version, func(t *testing.T) {
					fx.upstream.received = nil
					body := `{"jsonrpc":"2.0","id":7,"method":"` + sp.caller + `","params":` + sp.params + `}`
					_, answer := fx.post(t, aliceKey, "documents", body, map[string]string{"A2A-Version": version})
					got := fx.upstream.calls("")
					if cd.card == namesCardV03 {
						checkV03Received(t, got, sp.v03, answer)
						return
					}
					want := strings.Replace(body, `"`+sp.caller+`"`, `"`+sp.v1+`"`, 1)
					if len(got) != 1 || string(got[0].body) != want {
						t.Fatalf("the agent received %v; want one call %s (answer %s)", bodies(got), want, answer)
					}
				})
			}
		}
	}
}

// checkV03Received asserts that a v0.3 agent received one call of
// method, or, for "", nothing and the caller a -32009 refusal.
func checkV03Received(t *testing.T, got []recorded, method, answer string) {
	t.Helper()
	if method == "" {
		if len(got) != 0 || !strings.Contains(answer, `"code":-32009`) {
			t.Fatalf("the agent received %v, the caller %s; want nothing forwarded and -32009", bodies(got), answer)
		}
		return
	}
	if len(got) != 1 || got[0].method != method || got[0].header.Get("A2A-Version") != "0.3" {
		t.Fatalf("the agent received %v; want one %s call under A2A-Version 0.3 (answer %s)", bodies(got), method, answer)
	}
}

func bodies(rs []recorded) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.body)
	}
	return out
}

// TestV1SpellingInBatch: each element of a batch is forwarded under its
// v1.0 name, the ids and the other members as the caller wrote them.
func TestV1SpellingInBatch(t *testing.T) {
	fx := namesFixture(t, namesCardV1)
	_, answer := fx.post(t, aliceKey, "documents", `[{"jsonrpc":"2.0","id":1,"method":"ListTaskPushNotificationConfig","params":{"taskId":"t1"}},`+
		`{"params":{"taskId":"t2"},"id":"b","method":"Set\u0054askPushNotificationConfig","jsonrpc":"2.0"}]`, nil)
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"ListTaskPushNotificationConfigs","params":{"taskId":"t1"}}`:    true,
		`{"params":{"taskId":"t2"},"id":"b","method":"CreateTaskPushNotificationConfig","jsonrpc":"2.0"}`: true,
	}
	got := fx.upstream.calls("")
	for _, r := range got {
		delete(want, string(r.body))
	}
	if len(got) != 2 || len(want) != 0 {
		t.Fatalf("the agent received %v; missing %v (answer %s)", bodies(got), want, answer)
	}
}

// TestV1SpellingAnswers: the caller of an older spelling gets the answer
// the caller of the v1.0 name gets, byte for byte, from a v1.0 agent (as
// it answered) and from a v0.3 agent (translated to v1.0's shape).
func TestV1SpellingAnswers(t *testing.T) {
	answers := map[string]string{
		"ListTaskPushNotificationConfigs":   `{"jsonrpc":"2.0","id":7,"result":{"configs":[{"taskId":"t1","id":"c1","url":"https://hooks.example.com/a2a"}]}}`,
		"tasks/pushNotificationConfig/list": `{"jsonrpc":"2.0","id":7,"result":[{"taskId":"t1","pushNotificationConfig":{"id":"c1","url":"https://hooks.example.com/a2a"}}]}`,
		"CreateTaskPushNotificationConfig":  `{"jsonrpc":"2.0","id":7,"result":{"taskId":"t1","id":"c1","url":"https://hooks.example.com/a2a"}}`,
		"tasks/pushNotificationConfig/set":  `{"jsonrpc":"2.0","id":7,"result":{"taskId":"t1","pushNotificationConfig":{"id":"c1","url":"https://hooks.example.com/a2a"}}}`,
	}
	for _, card := range []string{namesCardV1, namesCardV03} {
		fx := namesFixture(t, card)
		fx.upstream.answer = func(w http.ResponseWriter, _ *http.Request, method string, _ json.RawMessage, _ []byte) bool {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, answers[method])
			return true
		}
		for _, sp := range v1Spellings {
			if sp.caller == sp.v1 || !strings.Contains(sp.v1, "PushNotificationConfig") {
				continue
			}
			post := func(method string) string {
				_, answer := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+sp.params+`}`, nil)
				return answer
			}
			current, old := post(sp.v1), post(sp.caller)
			if old != current || !strings.Contains(current, `"url":"https://hooks.example.com/a2a"`) || strings.Contains(current, "pushNotificationConfig") {
				t.Errorf("%s: answered %s; %s answered %s", sp.caller, old, sp.v1, current)
			}
		}
	}
}
