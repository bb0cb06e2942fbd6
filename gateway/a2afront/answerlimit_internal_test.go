package a2afront

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/answer/answertest"
)

// answerLimit is the documents agent's own answer limit in these tests.
const answerLimit = 8192

// limitFixture is the documents fixture with its agent's answers limited
// to answerLimit bytes (agents[].max_answer_bytes), and an upstream that
// answers every call with answer(id) as contentType.
func limitFixture(t *testing.T, contentType string, answerOf func(id string) string) *fixture {
	t.Helper()
	data, err := readQuickstartPolicy()
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(fixtureConfig, "  - name: documents\n    url: %[1]s/\n",
		fmt.Sprintf("  - name: documents\n    url: %%[1]s/\n    max_answer_bytes: %d\n", answerLimit), 1)
	up := &recorder{answer: func(w http.ResponseWriter, _ *http.Request, _ string, id json.RawMessage, _ []byte) bool {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, answerOf(string(id)))
		return true
	}}
	return newFixtureWith(t, cfg, data, quickstartCatalog(), up)
}

// textAnswer is a message answer whose text is n bytes of marker.
func textAnswer(id string, n int) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"` +
		strings.Repeat("z", n) + `"}]}}`
}

// overLimit is what a v0.3 caller gets for an answer over the limit.
func overLimit(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the agent's answer is larger than the gateway's limit of 8192 bytes",` +
		`"data":{"limit":8192,"reason":"answer_too_large"}}}`
}

// TestAnswerOverTheAgentsLimit: an agent's answer over its own limit is
// refused with answer_too_large naming the limit, for the call's id, and
// not as an unavailable upstream: the agent was reached and answered.
// Nothing of the answer reaches the caller. An answer within the limit
// passes whole.
func TestAnswerOverTheAgentsLimit(t *testing.T) {
	fits := answerLimit - len(textAnswer("1", 0))
	tests := []struct {
		name   string
		method string
		header map[string]string
		size   int
		want   string // "" means the answer as sent
	}{
		{"within the limit", "message/send", nil, fits, ""},
		{"one byte over", "message/send", nil, fits + 1, overLimit("1")},
		{"far over", "message/send", nil, 1 << 20, overLimit("1")},
		{"v1.0 caller, typed details", "SendMessage", map[string]string{"A2A-Version": "1.0"}, 1 << 20,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the agent's answer is larger than the gateway's limit of 8192 bytes",` +
				`"data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ANSWER_TOO_LARGE","domain":"capgate",` +
				`"metadata":{"code":"-32603","limit":"8192","reason":"answer_too_large"}}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := limitFixture(t, "application/json", func(id string) string { return textAnswer(id, tt.size) })
			params := sendParams
			if tt.header != nil {
				params = `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
			}
			status, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":1,"method":"`+tt.method+`","params":`+params+`}`, tt.header)
			if len(fx.upstream.calls(tt.method)) != 1 {
				t.Fatalf("the agent was not called: %s", body)
			}
			want := tt.want
			if want == "" {
				want = textAnswer("1", tt.size)
			}
			if status != http.StatusOK || body != want {
				t.Fatalf("status %d\ngot  %.300s\nwant %.300s", status, body, want)
			}
		})
	}
}

// TestStreamEventOverTheAgentsLimit: a stream passes event by event; the
// event over the limit is replaced by answer_too_large and ends the
// stream, so nothing of it or after it reaches the caller.
func TestStreamEventOverTheAgentsLimit(t *testing.T) {
	working := `{"kind":"status-update","taskId":"task-1","contextId":"c","status":{"state":"working"},"final":false}`
	fx := limitFixture(t, "text/event-stream", func(id string) string {
		ok := "data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + working + "}\n\n"
		return ok + "data: " + textAnswer(id, answerLimit) + "\n\n" + ok
	})
	_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":5,"method":"message/stream","params":`+sendParams+`}`, nil)
	got := answertest.ClientEvents(body)
	want := []string{`{"jsonrpc":"2.0","id":5,"result":` + working + `}`, overLimit("5")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || strings.Contains(body, "zzzz") {
		t.Fatalf("stream %.300q\nwant events %q", body, want)
	}
}

// TestBatchElementOverTheAgentsLimit: in a batch, the element whose
// answer is over the limit gets answer_too_large; the others are
// answered.
func TestBatchElementOverTheAgentsLimit(t *testing.T) {
	fx := limitFixture(t, "application/json", func(id string) string {
		if id == "2" {
			return textAnswer(id, answerLimit)
		}
		return textAnswer(id, 10)
	})
	send := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"message/send","params":%s}`, id, sendParams)
	}
	_, body := fx.post(t, aliceKey, "documents", "["+send(1)+","+send(2)+"]", nil)
	if want := "[" + textAnswer("1", 10) + "," + overLimit("2") + "]"; strings.TrimSpace(body) != want {
		t.Fatalf("got  %.300s\nwant %.300s", body, want)
	}
}

// TestDefaultAnswerLimit: an agent that sets no limit of its own gets the
// front's, and a front configured with none gets answer.DefaultMaxBytes.
func TestDefaultAnswerLimit(t *testing.T) {
	fx := newFixture(t)
	if got := fx.front.agents["documents"].maxAnswer; got != answer.DefaultMaxBytes || answer.DefaultMaxBytes != 16<<20 {
		t.Fatalf("limit %d, want 16 MiB", got)
	}
}
