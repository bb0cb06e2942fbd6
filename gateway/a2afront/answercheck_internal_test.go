package a2afront

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/answer/answertest"
)

// bobsTask is a task bob started at the documents agent. Every answer
// below smuggles it (or another marker) to alice in a member the answer
// processors do not read as a client may read it.
const bobsTask = "task-bob"

// strictFixture is the documents fixture, with bobsTask bound to bob and
// an upstream that answers every call with answer(id).
func strictFixture(t *testing.T, contentType string, answer func(id string) string) *fixture {
	t.Helper()
	fx := newFixture(t)
	owners, err := fx.front.deps.Tasks.Claim(context.Background(), "documents", "user:bob@example.com", []string{bobsTask})
	if err != nil || owners[0] != "user:bob@example.com" {
		t.Fatalf("claim: %v %v", owners, err)
	}
	fx.upstream.answer = func(w http.ResponseWriter, _ *http.Request, method string, id json.RawMessage, _ []byte) bool {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, answer(string(id)))
		return true
	}
	return fx
}

// sendParams is a plain message.
const sendParams = `{"message":{"messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`

// fine is an answer every check passes.
func fine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"ok"}]}}`
}

// refusal is what a v0.3 caller gets for an answer refused by the check.
func refusal(id, detail string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the agent's answer does not pass the gateway's JSON checks",` +
		`"data":{"detail":"` + detail + `","reason":"malformed_answer"}}}`
}

// refusalV1 is what a v1.0 caller gets for it: the same error, its data
// in v1.0's typed details.
func refusalV1(id, detail string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the agent's answer does not pass the gateway's JSON checks",` +
		`"data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"MALFORMED_ANSWER","domain":"capgate",` +
		`"metadata":{"code":"-32603","detail":"` + detail + `","reason":"malformed_answer"}}]}}`
}

// TestStrictUnaryAnswers: an answer that readers could read differently
// (a case-variant or repeated member, invalid UTF-8) is replaced by the
// refusal for the call's id, and nothing of it reaches the caller. Each
// one passed to the caller before, with bob's task or the marker in it.
func TestStrictUnaryAnswers(t *testing.T) {
	task := `{"kind":"task","id":"` + bobsTask + `","status":{"state":"completed"}}`
	message := `{"kind":"message","messageId":"m","role":"agent","parts":[]}`
	tests := []struct {
		name, method, params string
		answer               string // $ID is the call's id
		wantDetail           string
	}{
		{"Result for result", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"Result":` + task + `}`, "case_variant_key"},
		{"repeated result, the first smuggled", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":` + task + `,"result":` + message + `}`, "duplicate_key"},
		{"repeated id", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":` + message + `,"id":"` + bobsTask + `"}`, "duplicate_key"},
		{"case variant of a task's member", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":{"kind":"task","id":"task-1","status":{"state":"completed"},"artifacts":[],` +
				`"Artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"` + bobsTask + `"}]}]}}`, "duplicate_key"},
		{"case variants inside a task's artifact", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":{"kind":"task","id":"task-1","status":{"state":"completed"},` +
				`"artifacts":[{"artifactId":"a","parts":[],"Parts":[{"kind":"text","text":"` + bobsTask + `"}]}]}}`, "duplicate_key"},
		{"repeated member deep in content", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":{"kind":"message","messageId":"m","role":"agent",` +
				`"parts":[{"kind":"data","data":{"to":"` + bobsTask + `","to":"alice"}}]}}`, "duplicate_key"},
		{"listing beside Tasks", "ListTasks", `{}`,
			`{"jsonrpc":"2.0","id":$ID,"result":{"tasks":[],"Tasks":[{"id":"` + bobsTask + `","status":{}}]}}`, "duplicate_key"},
		{"invalid UTF-8", "message/send", sendParams,
			`{"jsonrpc":"2.0","id":$ID,"result":{"kind":"message","messageId":"m","role":"agent",` +
				"\"parts\":[{\"kind\":\"text\",\"text\":\"" + bobsTask + "\xff\"}]}}", "invalid_utf8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := strictFixture(t, "application/json", func(id string) string { return strings.ReplaceAll(tt.answer, "$ID", id) })
			var header map[string]string
			want := refusal(`"c1"`, tt.wantDetail)
			if !strings.Contains(tt.method, "/") {
				header = map[string]string{"A2A-Version": "1.0"}
				want = refusalV1(`"c1"`, tt.wantDetail)
			}
			_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":"c1","method":"`+tt.method+`","params":`+tt.params+`}`, header)
			if len(fx.upstream.calls(tt.method)) != 1 {
				t.Fatalf("the agent was not called: %s", body)
			}
			if body != want {
				t.Fatalf("got  %s\nwant %s", body, want)
			}
		})
	}
}

// TestStrictArrayAnswer: each element of an array answer is checked on
// its own; the one refused is replaced by the refusal for the call's id.
func TestStrictArrayAnswer(t *testing.T) {
	fx := strictFixture(t, "application/json", func(id string) string {
		return `[` + fine(id) + `,{"jsonrpc":"2.0","id":` + id + `,"Result":{"kind":"task","id":"` + bobsTask + `","status":{}}}]`
	})
	_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":`+sendParams+`}`, nil)
	if want := `[` + fine("1") + `,` + refusal("1", "case_variant_key") + `]`; body != want {
		t.Fatalf("got  %s\nwant %s", body, want)
	}
}

// TestStrictBatchElement: in a caller's batch, the element whose answer
// is refused gets the refusal; the other keeps its answer.
func TestStrictBatchElement(t *testing.T) {
	fx := strictFixture(t, "application/json", func(id string) string {
		if id == "2" {
			return `{"jsonrpc":"2.0","id":2,"result":{"kind":"task","id":"task-1","status":{}},"RESULT":{"kind":"task","id":"` + bobsTask + `","status":{}}}`
		}
		return fine(id)
	})
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"message/send","params":` + sendParams + `}`
	}
	_, body := fx.post(t, aliceKey, "documents", `[`+call("1")+`,`+call("2")+`]`, nil)
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 2 {
		t.Fatalf("batch answer %s: %v", body, err)
	}
	if string(got[0]) != fine("1") || string(got[1]) != refusal("2", "case_variant_key") {
		t.Fatalf("batch answer %s", body)
	}
}

// TestStrictStreamEvents: an event that readers could read differently
// is replaced by the refusal and ends the stream; the events before it
// pass, none after it.
func TestStrictStreamEvents(t *testing.T) {
	event := func(id, result string) string {
		return "data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}\n\n"
	}
	working := `{"kind":"status-update","taskId":"task-1","contextId":"c","status":{"state":"working"},"final":false}`
	tests := []struct{ name, smuggled, wantDetail string }{
		{"repeated taskId, the first smuggled", "data: {\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":" +
			`{"kind":"status-update","taskId":"` + bobsTask + `","taskId":"task-1","contextId":"c","status":{"state":"working"},"final":false}}` + "\n\n", "duplicate_key"},
		{"Result for result", "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":$ID,\"Result\":" +
			`{"kind":"status-update","taskId":"` + bobsTask + `","contextId":"c","status":{"state":"working"},"final":false}}` + "\n\n", "case_variant_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := strictFixture(t, "text/event-stream", func(id string) string {
				return event(id, working) + strings.ReplaceAll(tt.smuggled, "$ID", id) + event(id, working)
			})
			_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":5,"method":"message/stream","params":`+sendParams+`}`, nil)
			got := answertest.ClientEvents(body)
			want := []string{`{"jsonrpc":"2.0","id":5,"result":` + working + `}`, refusal("5", tt.wantDetail)}
			if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || strings.Contains(body, bobsTask) {
				t.Fatalf("stream %q\nwant events %q", body, want)
			}
		})
	}
}

// TestStrictAnswerSpelledRightIsRead: the same answers, spelled as the
// processors read them, are processed: bob's task is refused to alice
// as not found. What the check refuses is what would have passed them.
func TestStrictAnswerSpelledRightIsRead(t *testing.T) {
	fx := strictFixture(t, "application/json", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"kind":"task","id":"` + bobsTask + `","status":{"state":"completed"}}}`
	})
	_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":`+sendParams+`}`, nil)
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`; body != want {
		t.Fatalf("got %s, want %s", body, want)
	}
}

// TestCaseVariantTaskIDStillOwned: a task named under a case variant of
// its members ("Id") passes the strict check, and task ownership, which
// reads members under case folding as such a client would, still keeps
// bob's task from alice.
func TestCaseVariantTaskIDStillOwned(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":$ID,"result":{"task":{"Id":"` + bobsTask + `","status":{"state":"TASK_STATE_COMPLETED"}}}}`
	fx := strictFixture(t, "application/json", func(id string) string { return strings.ReplaceAll(answer, "$ID", id) })
	_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":"c1","method":"SendMessage","params":`+
		`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, map[string]string{"A2A-Version": "1.0"})
	if strings.Contains(body, bobsTask) || !strings.Contains(body, `"code":-32001`) {
		t.Fatalf("alice got %s; want Task not found", body)
	}
}

// TestListingTotalsUnderAnyReadersSpelling: a listing's total under the
// spelling a protojson reader also takes ("total_size") counts only the
// caller's tasks, and a second spelling of the tasks a reader could take
// for them refuses the answer.
func TestListingTotalsUnderAnyReadersSpelling(t *testing.T) {
	tests := []struct {
		name, answer, want string
	}{
		{"total_size", `{"jsonrpc":"2.0","id":$ID,"result":{"tasks":[{"id":"` + bobsTask + `","status":{}}],"total_size":57}}`,
			`{"id":"c1","jsonrpc":"2.0","result":{"tasks":[],"total_size":0}}`},
		{"Tasks alone", `{"jsonrpc":"2.0","id":$ID,"result":{"Tasks":[{"id":"` + bobsTask + `","status":{}}],"TotalSize":1}}`,
			`{"id":"c1","jsonrpc":"2.0","result":{"Tasks":[],"TotalSize":0}}`},
		{"total-size", `{"jsonrpc":"2.0","id":$ID,"result":{"tasks":[{"id":"` + bobsTask + `","status":{}}],"total-size":57}}`,
			`{"id":"c1","jsonrpc":"2.0","result":{"tasks":[],"total-size":0}}`},
		{"ta_sks beside tasks", `{"jsonrpc":"2.0","id":$ID,"result":{"tasks":[],"ta_sks":[{"id":"` + bobsTask + `","status":{}}]}}`,
			`{"jsonrpc":"2.0","id":"c1","error":{"code":-32603,"message":"Internal error","data":{"reason":"internal_error"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := strictFixture(t, "application/json", func(id string) string { return strings.ReplaceAll(tt.answer, "$ID", id) })
			_, body := fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":"c1","method":"ListTasks","params":{}}`,
				map[string]string{"A2A-Version": "1.0"})
			if body != tt.want {
				t.Fatalf("got  %s\nwant %s", body, tt.want)
			}
		})
	}
}

// TestNullListingInABatch: a listing answered with a null result is
// refused for its element, and the gateway, which forwards each batch
// element in a goroutine of its own, stays up to answer the batch (a nil
// map written to ended the process).
func TestNullListingInABatch(t *testing.T) {
	fx := strictFixture(t, "application/json", func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":null}`
	})
	status, body := fx.post(t, aliceKey, "documents", `[{"jsonrpc":"2.0","id":"l1","method":"ListTasks","params":{}}]`,
		map[string]string{"A2A-Version": "1.0"})
	want := `[{"jsonrpc":"2.0","id":"l1","error":{"code":-32603,"message":"Internal error","data":{"reason":"internal_error"}}}]` + "\n"
	if status != http.StatusOK || body != want {
		t.Fatalf("status %d, body %s; want %s", status, body, want)
	}
	// Alone, the same answer is refused without any recovery.
	_, body = fx.post(t, aliceKey, "documents", `{"jsonrpc":"2.0","id":"l2","method":"ListTasks","params":{}}`,
		map[string]string{"A2A-Version": "1.0"})
	if !strings.Contains(body, `"id":"l2"`) || !strings.Contains(body, `"internal_error"`) {
		t.Fatalf("alone: %s; want an internal error for l2", body)
	}
}
