package a2atasks

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

func TestFollowUpTasks(t *testing.T) {
	tests := []struct {
		method, params string
		want           []string
		wantCode       int
	}{
		{"tasks/get", `{"id":"t1"}`, []string{"t1"}, 0},
		{"GetTask", `{"name":"tasks/t1"}`, []string{"t1"}, 0},
		{"CancelTask", `{"Id":"t1"}`, []string{"t1"}, 0},
		{"tasks/pushNotificationConfig/get", `{"id":"t1","pushNotificationConfigId":"c"}`, []string{"t1"}, 0},
		{"GetTaskPushNotificationConfig", `{"taskId":"t1","id":"c"}`, []string{"t1"}, 0},
		{"GetTaskPushNotificationConfig", `{"name":"tasks/t1/pushNotificationConfigs/c"}`, []string{"t1"}, 0},
		{"SetTaskPushNotificationConfig", `{"parent":"tasks/t1","config":{}}`, []string{"t1"}, 0},
		{"tasks/get", `{"id":"t1","task_id":"t2"}`, []string{"t1", "t2"}, 0},
		// encoding/json folds "ſ" (U+017F) to "s" and the Kelvin sign to
		// "k": an agent decoding with it reads these as taskId.
		{"tasks/pushNotificationConfig/set", `{"id":"mine","taſkId":"victim","pushNotificationConfig":{"url":"https://x/"}}`, []string{"mine", "victim"}, 0},
		{"GetTaskPushNotificationConfig", `{"tasKId":"t1","id":"c"}`, []string{"t1"}, 0},
		{"tasks/get", `{}`, nil, jsonrpc.CodeInvalidParams},
		{"tasks/get", `{"id":7}`, nil, jsonrpc.CodeInvalidParams},
		{"GetTask", `{"name":"contexts/c"}`, nil, jsonrpc.CodeInvalidParams},
		{"tasks/get", `["t1"]`, nil, jsonrpc.CodeInvalidParams},
		{"GetTaskPushNotificationConfig", `{"id":"c"}`, nil, jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		canonical, _ := jsonrpc.MethodGeneration(tt.method)
		got, e := followUpTasks(tt.method, canonical, json.RawMessage(tt.params))
		slices.Sort(got)
		if (e == nil) != (tt.wantCode == 0) || (e != nil && e.Code != tt.wantCode) || !slices.Equal(got, tt.want) {
			t.Errorf("%s %s = %v, %v; want %v, code %d", tt.method, tt.params, got, e, tt.want, tt.wantCode)
		}
	}
}

func TestSendTasks(t *testing.T) {
	tests := []struct {
		method, params string
		named, chosen  []string
		wantErr        bool
	}{
		{"message/send", `{"message":{"messageId":"m"}}`, nil, nil, false},
		{"message/send", `{"message":{"taskId":"t1","referenceTaskIds":["t2","t3"]}}`, []string{"t1", "t2", "t3"}, nil, false},
		{"SendMessage", `{"request":{"task_id":"t1"}}`, []string{"t1"}, nil, false},
		{"message/send", `{"message":{"taſkId":"victim"}}`, []string{"victim"}, nil, false},
		{"message/send", `{"meſſage":{"taskId":"victim"}}`, []string{"victim"}, nil, false},
		{"tasks/send", `{"id":"t9","message":{}}`, nil, []string{"t9"}, false},
		{"message/send", `{"message":{"taskId":1}}`, nil, nil, true},
		{"message/send", `{"message":{"referenceTaskIds":"t1"}}`, nil, nil, true},
	}
	for _, tt := range tests {
		named, chosen, e := sendTasks(tt.method, json.RawMessage(tt.params))
		slices.Sort(named)
		if (e != nil) != tt.wantErr || !slices.Equal(named, tt.named) || !slices.Equal(chosen, tt.chosen) {
			t.Errorf("%s %s = %v %v %v; want %v %v", tt.method, tt.params, named, chosen, e, tt.named, tt.chosen)
		}
	}
}

func TestAnswerTasks(t *testing.T) {
	tests := []struct {
		result string
		want   []string
	}{
		{`{"kind":"task","id":"t1"}`, []string{"t1"}},
		{`{"id":"t1","status":{"state":"working"}}`, []string{"t1"}},
		{`{"kind":"message","messageId":"m","taskId":"t1"}`, []string{"t1"}},
		{`{"kind":"status-update","taskId":"t1","status":{}}`, []string{"t1"}},
		{`{"task":{"id":"t1","status":{}}}`, []string{"t1"}},
		{`{"statusUpdate":{"taskId":"t1"}}`, []string{"t1"}},
		{`{"kind":"message","messageId":"m","parts":[{"data":{"taskId":"deep"}}]}`, nil},
		{`{"id":"not-a-task"}`, nil},
		{`"text"`, nil},
	}
	for _, tt := range tests {
		if got := answerTasks(json.RawMessage(tt.result)); !slices.Equal(got, tt.want) {
			t.Errorf("answerTasks(%s) = %v, want %v", tt.result, got, tt.want)
		}
	}
}
