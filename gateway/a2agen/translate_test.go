package a2agen_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

func TestTranslatable(t *testing.T) {
	tests := []struct {
		v1, want string
		ok       bool
	}{
		{"SendMessage", "message/send", true},
		{"SendStreamingMessage", "message/stream", true},
		{"GetTask", "tasks/get", true},
		{"CancelTask", "tasks/cancel", true},
		{"SubscribeToTask", "tasks/resubscribe", true},
		{"CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set", true},
		{"ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list", true},
		{"GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get", true},
		{"DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete", true},
		{"ListTasks", "", false},
		{"GetExtendedAgentCard", "", false},
		{"message/send", "", false},
		{"sendmessage", "", false},
		{"a2a/skill/invoke", "", false},
	}
	for _, tt := range tests {
		got, ok := a2agen.Translatable(tt.v1)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Translatable(%q) = %q, %v; want %q, %v", tt.v1, got, ok, tt.want, tt.ok)
		}
	}
}

// msg is a v1.0 SendMessage params with one part.
func msg(part string) string {
	return `{"message":{"messageId":"m","role":"ROLE_USER","parts":[` + part + `]}}`
}

func TestRequestRefusals(t *testing.T) {
	tests := []struct {
		name, method, params string
		wantPath             string
		wantErr              error
	}{
		{"no translation", "ListTasks", `{}`, "method", a2agen.ErrUntranslatable},
		{"params not an object", "GetTask", `[1]`, "params", a2agen.ErrMalformed},
		{"unknown member", "GetTask", `{"id":"t","pageSize":3}`, "params.pageSize", a2agen.ErrUntranslatable},
		{"tenant", "GetTask", `{"id":"t","tenant":"acme"}`, "params.tenant", a2agen.ErrUntranslatable},
		{"no id", "GetTask", `{}`, "params.id", a2agen.ErrMalformed},
		{"history not a number", "GetTask", `{"id":"t","historyLength":"x"}`, "params.historyLength", a2agen.ErrMalformed},
		{"no message", "SendMessage", `{}`, "params.message", a2agen.ErrMalformed},
		{"unspecified role", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_UNSPECIFIED","parts":[]}}`, "params.message.role", a2agen.ErrUntranslatable},
		{"no message id", "SendMessage", `{"message":{"role":"ROLE_USER","parts":[]}}`, "params.message.messageId", a2agen.ErrMalformed},
		{"no parts", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER"}}`, "params.message.parts", a2agen.ErrMalformed},
		{"unknown message member", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[],"kind":"message"}}`, "params.message.kind", a2agen.ErrUntranslatable},
		{"markdown text", "SendMessage", msg(`{"text":"# hi","mediaType":"text/markdown"}`), "params.message.parts[0].mediaType", a2agen.ErrUntranslatable},
		{"named text", "SendMessage", msg(`{"text":"hi","filename":"a.txt"}`), "params.message.parts[0].filename", a2agen.ErrUntranslatable},
		{"array data", "SendMessage", msg(`{"data":[1,2]}`), "params.message.parts[0].data", a2agen.ErrUntranslatable},
		{"string data", "SendMessage", msg(`{"data":"x"}`), "params.message.parts[0].data", a2agen.ErrUntranslatable},
		{"two contents", "SendMessage", msg(`{"text":"a","url":"https://x"}`), "params.message.parts[0].url", a2agen.ErrMalformed},
		{"no content", "SendMessage", msg(`{"mediaType":"text/plain"}`), "params.message.parts[0]", a2agen.ErrMalformed},
		{"bad bytes", "SendMessage", msg(`{"raw":"%%%"}`), "params.message.parts[0].raw", a2agen.ErrMalformed},
		{"v0.3 part", "SendMessage", msg(`{"kind":"text","text":"hi"}`), "params.message.parts[0].kind", a2agen.ErrUntranslatable},
		{"push with task", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]},"configuration":{"taskPushNotificationConfig":{"url":"https://h","taskId":"t"}}}`,
			"params.configuration.taskPushNotificationConfig.taskId", a2agen.ErrUntranslatable},
		{"unknown config member", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]},"configuration":{"blocking":true}}`,
			"params.configuration.blocking", a2agen.ErrUntranslatable},
		{"metadata not an object", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]},"metadata":[1]}`, "params.metadata", a2agen.ErrMalformed},
		{"push without url", "CreateTaskPushNotificationConfig", `{"taskId":"t"}`, "params.url", a2agen.ErrMalformed},
		{"push get without id", "GetTaskPushNotificationConfig", `{"taskId":"t"}`, "params.id", a2agen.ErrMalformed},
		{"push list without task", "ListTaskPushNotificationConfigs", `{}`, "params.taskId", a2agen.ErrMalformed},
		{"push list page size", "ListTaskPushNotificationConfigs", `{"taskId":"t","pageSize":2}`, "params.pageSize", a2agen.ErrUntranslatable},
		{"push list page token", "ListTaskPushNotificationConfig", `{"taskId":"t","pageToken":"p"}`, "params.pageToken", a2agen.ErrUntranslatable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := a2agen.Request(tt.method, json.RawMessage(tt.params))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Request() error = %v, want %v", err, tt.wantErr)
			}
			var e *a2agen.Error
			if !errors.As(err, &e) || e.Path != tt.wantPath {
				t.Errorf("error path = %v, want %q", err, tt.wantPath)
			}
		})
	}
}

// resp is a v0.3 response whose result is result.
func resp(result string) string { return `{"jsonrpc":"2.0","id":1,"result":` + result + `}` }

// task03 is a v0.3 task whose artifact holds part.
func task03(part string) string {
	return `{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[` + part + `]}]}`
}

func TestResponseRefusals(t *testing.T) {
	tests := []struct {
		name, method, resp string
		wantPath           string
		wantErr            error
	}{
		{"not an object", "GetTask", `[]`, "response", a2agen.ErrMalformed},
		{"neither result nor error", "GetTask", `{"jsonrpc":"2.0","id":1}`, "response", a2agen.ErrMalformed},
		{"message for GetTask", "GetTask", resp(`{"kind":"message","messageId":"m","role":"agent","parts":[]}`), "result.kind", a2agen.ErrMalformed},
		{"update for SendMessage", "SendMessage", resp(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"}}`), "result.kind", a2agen.ErrMalformed},
		{"null result", "SendMessage", resp(`null`), "result.kind", a2agen.ErrMalformed},
		{"push list not a list", "ListTaskPushNotificationConfigs", resp(`{"configs":[]}`), "result", a2agen.ErrMalformed},
		{"unknown state", "GetTask", resp(`{"kind":"task","id":"t","status":{"state":"paused"}}`), "result.status.state", a2agen.ErrMalformed},
		{"unknown task member", "GetTask", resp(`{"kind":"task","id":"t","status":{"state":"working"},"owner":"x"}`), "result.owner", a2agen.ErrUntranslatable},
		{"unknown part kind", "GetTask", resp(task03(`{"kind":"image"}`)), "result.artifacts[0].parts[0].kind", a2agen.ErrMalformed},
		{"file with both", "GetTask", resp(task03(`{"kind":"file","file":{"bytes":"aGk=","uri":"https://x"}}`)), "result.artifacts[0].parts[0].file", a2agen.ErrMalformed},
		{"file member unknown", "GetTask", resp(task03(`{"kind":"file","file":{"uri":"https://x","size":3}}`)), "result.artifacts[0].parts[0].file.size", a2agen.ErrUntranslatable},
		{"data not an object", "GetTask", resp(task03(`{"kind":"data","data":[1]}`)), "result.artifacts[0].parts[0].data", a2agen.ErrMalformed},
		{"bad role", "SendMessage", resp(`{"kind":"message","messageId":"m","role":"system","parts":[]}`), "result.role", a2agen.ErrMalformed},
		{"two push schemes", "GetTaskPushNotificationConfig", resp(`{"taskId":"t","pushNotificationConfig":{"url":"https://h","authentication":{"schemes":["Bearer","Basic"]}}}`),
			"result.pushNotificationConfig.authentication.schemes", a2agen.ErrUntranslatable},
		{"deletion answers something", "DeleteTaskPushNotificationConfig", resp(`{"ok":true}`), "result", a2agen.ErrUntranslatable},
		{"no translation", "ListTasks", resp(`{}`), "method", a2agen.ErrUntranslatable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a2agen.Response(tt.method, json.RawMessage(tt.resp))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Response() error = %v, want %v", err, tt.wantErr)
			}
			var e *a2agen.Error
			if !errors.As(err, &e) || e.Path != tt.wantPath {
				t.Errorf("error path = %v, want %q", err, tt.wantPath)
			}
		})
	}
}

// TestStreamEvents pins the StreamResponse member each v0.3 event kind
// becomes.
func TestStreamEvents(t *testing.T) {
	tests := []struct{ result, member string }{
		{`{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}`, "task"},
		{`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"x"}]}`, "message"},
		{`{"kind":"status-update","taskId":"t","contextId":"c","final":false,"status":{"state":"working"}}`, "statusUpdate"},
		{`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]}}`, "artifactUpdate"},
	}
	for _, tt := range tests {
		for _, method := range []string{"SendStreamingMessage", "SubscribeToTask"} {
			out, err := a2agen.Response(method, json.RawMessage(resp(tt.result)))
			if err != nil {
				t.Fatalf("%s %s: %v", method, tt.result, err)
			}
			var env struct {
				Result map[string]json.RawMessage `json:"result"`
			}
			if json.Unmarshal(out, &env) != nil || len(env.Result) != 1 || env.Result[tt.member] == nil {
				t.Errorf("%s: %s, want one member %q", method, out, tt.member)
			}
		}
	}
}

// TestRoundTripsMessage checks that a message sent in v1.0 and echoed by a
// v0.3 agent comes back as it was sent.
func TestRoundTripsMessage(t *testing.T) {
	sent := `{"messageId":"m","role":"ROLE_USER","contextId":"c","parts":[{"text":"hi"},{"data":{"a":[1,2]}},{"raw":"aGk=","filename":"x","mediaType":"a/b"},{"url":"https://x/y"}],"metadata":{"k":{"v":1}},"extensions":["e"],"referenceTaskIds":["t"]}`
	_, params, err := a2agen.Request("SendMessage", json.RawMessage(`{"message":`+sent+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Message json.RawMessage }
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	back, err := a2agen.Response("SendMessage", json.RawMessage(resp(string(p.Message))))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Result struct{ Message any } `json:"result"`
	}
	var want any
	if err := json.Unmarshal(back, &env); err != nil || json.Unmarshal([]byte(sent), &want) != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, env.Result.Message), mustJSON(t, want); g != w {
		t.Errorf("round trip:\ngot  %s\nwant %s", g, w)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
