package a2agen_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/capgate/capgate/gateway/a2agen"
)

func TestTranslatableTo1(t *testing.T) {
	for v03, want := range map[string]string{
		"message/send": "SendMessage", "message/stream": "SendStreamingMessage", "tasks/get": "GetTask",
		"tasks/cancel": "CancelTask", "tasks/resubscribe": "SubscribeToTask",
		"tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
		"tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
		"tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs", "tasks/send": "", "agent/getAuthenticatedExtendedCard": "", "SendMessage": "",
	} {
		got, ok := a2agen.TranslatableTo1(v03)
		if got != want || ok != (want != "") {
			t.Errorf("TranslatableTo1(%q) = %q, %v; want %q", v03, got, ok, want)
		}
	}
}

// msg03 is v0.3 message/send params whose message holds part.
func msg03(part string) string {
	return `{"message":{"kind":"message","messageId":"m","role":"user","parts":[` + part + `]}}`
}

func TestRequestTo1Refusals(t *testing.T) {
	tests := []struct {
		name, method, params string
		wantPath             string
		wantErr              error
	}{
		{"no translation", "tasks/send", `{"id":"t"}`, "method", a2agen.ErrUntranslatable},
		{"list metadata", "tasks/pushNotificationConfig/list", `{"id":"t","metadata":{"k":1}}`, "params.metadata", a2agen.ErrUntranslatable},
		{"params not an object", "tasks/get", `"t"`, "params", a2agen.ErrMalformed},
		{"unknown member", "tasks/get", `{"id":"t","tenant":"acme"}`, "params.tenant", a2agen.ErrUntranslatable},
		{"get metadata", "tasks/get", `{"id":"t","metadata":{"k":1}}`, "params.metadata", a2agen.ErrUntranslatable},
		{"resubscribe metadata", "tasks/resubscribe", `{"id":"t","metadata":{"k":1}}`, "params.metadata", a2agen.ErrUntranslatable},
		{"no id", "tasks/cancel", `{}`, "params.id", a2agen.ErrMalformed},
		{"no message", "message/send", `{}`, "params.message", a2agen.ErrMalformed},
		{"message of another kind", "message/send", `{"message":{"kind":"task","messageId":"m","role":"user","parts":[]}}`, "params.message.kind", a2agen.ErrMalformed},
		{"v1.0 role", "message/send", `{"message":{"kind":"message","messageId":"m","role":"ROLE_USER","parts":[]}}`, "params.message.role", a2agen.ErrMalformed},
		{"unknown part kind", "message/send", msg03(`{"kind":"video"}`), "params.message.parts[0].kind", a2agen.ErrMalformed},
		{"file with both", "message/send", msg03(`{"kind":"file","file":{"bytes":"aGk=","uri":"https://x"}}`), "params.message.parts[0].file", a2agen.ErrMalformed},
		{"unknown config member", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[]},"configuration":{"returnImmediately":true}}`,
			"params.configuration.returnImmediately", a2agen.ErrUntranslatable},
		{"push with two schemes", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[]},"configuration":{"pushNotificationConfig":{"url":"https://h","authentication":{"schemes":["a","b"]}}}}`,
			"params.configuration.pushNotificationConfig.authentication.schemes", a2agen.ErrUntranslatable},
		{"push get without config id", "tasks/pushNotificationConfig/get", `{"id":"t"}`, "params.pushNotificationConfigId", a2agen.ErrMalformed},
		{"push set without config", "tasks/pushNotificationConfig/set", `{"taskId":"t"}`, "params.pushNotificationConfig", a2agen.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := a2agen.RequestTo1(tt.method, json.RawMessage(tt.params))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("RequestTo1() error = %v, want %v", err, tt.wantErr)
			}
			var e *a2agen.Error
			if !errors.As(err, &e) || e.Path != tt.wantPath {
				t.Errorf("error path = %v, want %q", err, tt.wantPath)
			}
		})
	}
}

func TestResponseTo03Refusals(t *testing.T) {
	task := func(part string) string {
		return `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[` + part + `]}]}`
	}
	tests := []struct {
		name, method, resp string
		wantPath           string
		wantErr            error
	}{
		{"not an object", "tasks/get", `[]`, "response", a2agen.ErrMalformed},
		{"neither result nor error", "tasks/get", `{"jsonrpc":"2.0","id":1}`, "response", a2agen.ErrMalformed},
		{"no payload", "message/send", resp(`{}`), "result", a2agen.ErrMalformed},
		{"two payloads", "message/send", resp(`{"task":{},"message":{}}`), "result.task", a2agen.ErrMalformed},
		{"update answers a send", "message/send", resp(`{"statusUpdate":{}}`), "result.statusUpdate", a2agen.ErrUntranslatable},
		{"v0.3 state", "tasks/get", resp(`{"id":"t","contextId":"c","status":{"state":"completed"}}`), "result.status.state", a2agen.ErrMalformed},
		{"markdown text", "tasks/get", resp(task(`{"text":"# hi","mediaType":"text/markdown"}`)), "result.artifacts[0].parts[0].mediaType", a2agen.ErrUntranslatable},
		{"array data", "tasks/get", resp(task(`{"data":[1]}`)), "result.artifacts[0].parts[0].data", a2agen.ErrUntranslatable},
		{"unknown task member", "tasks/cancel", resp(`{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"},"tenant":"x"}`), "result.tenant", a2agen.ErrUntranslatable},
		{"list with more pages", "tasks/pushNotificationConfig/list", resp(`{"configs":[],"nextPageToken":"p2"}`), "result.nextPageToken", a2agen.ErrUntranslatable},
		{"list of no object", "tasks/pushNotificationConfig/list", resp(`{"configs":[1]}`), "result.configs[0]", a2agen.ErrMalformed},
		{"deletion answers something", "tasks/pushNotificationConfig/delete", resp(`{"id":"p"}`), "result", a2agen.ErrUntranslatable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a2agen.ResponseTo03(tt.method, json.RawMessage(tt.resp))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ResponseTo03() error = %v, want %v", err, tt.wantErr)
			}
			var e *a2agen.Error
			if !errors.As(err, &e) || e.Path != tt.wantPath {
				t.Errorf("error path = %v, want %q", err, tt.wantPath)
			}
		})
	}
}

// fuzzMethods03 are the v0.3 methods the fuzz targets pick from.
var fuzzMethods03 = []string{"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe",
	"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/delete", "tasks/pushNotificationConfig/list"}

// FuzzRequestTo1 checks that any v0.3 params either translate into a JSON
// object or fail with ErrUntranslatable or ErrMalformed, never a panic.
func FuzzRequestTo1(f *testing.F) {
	seeds(f, "params")
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		_, out, err := a2agen.RequestTo1(fuzzMethods03[int(m)%len(fuzzMethods03)], params, "capabilities")
		if !translated(t, err) {
			return
		}
		mustBeObject(t, out)
	})
}

// FuzzResponseTo03 checks that any v1.0 response either translates into
// JSON or fails with ErrUntranslatable or ErrMalformed, never a panic.
func FuzzResponseTo03(f *testing.F) {
	seeds(f, "response")
	f.Fuzz(func(t *testing.T, m uint8, resp []byte) {
		out, err := a2agen.ResponseTo03(fuzzMethods03[int(m)%len(fuzzMethods03)], resp)
		if !translated(t, err) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("translated response is not JSON: %s", out)
		}
	})
}
