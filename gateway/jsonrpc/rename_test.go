package jsonrpc

import (
	"errors"
	"testing"
)

// v1Names are the JSON-RPC methods of A2A v1.0 as a2a-go/v2 v2.4.0's
// server dispatches them (its internal/jsonrpc method table): the only
// names a v1.0 agent is sure to know.
var v1Names = map[string]string{
	"SendMessage":                      MethodSendMessage,
	"SendStreamingMessage":             MethodSendStreamingMessage,
	"GetTask":                          MethodGetTask,
	"ListTasks":                        MethodListTasks,
	"CancelTask":                       MethodCancelTask,
	"SubscribeToTask":                  MethodSubscribeToTask,
	"CreateTaskPushNotificationConfig": MethodSetTaskPushNotificationConfig,
	"GetTaskPushNotificationConfig":    MethodGetTaskPushNotificationConfig,
	"ListTaskPushNotificationConfigs":  MethodListTaskPushNotificationConfig,
	"DeleteTaskPushNotificationConfig": MethodDeleteTaskPushNotificationConfig,
	"GetExtendedAgentCard":             MethodGetAuthenticatedExtendedCard,
}

func TestV1Name(t *testing.T) {
	tests := []struct{ method, want string }{
		// the v1.0 names themselves
		{"SendMessage", "SendMessage"},
		{"SendStreamingMessage", "SendStreamingMessage"},
		{"GetTask", "GetTask"},
		{"ListTasks", "ListTasks"},
		{"CancelTask", "CancelTask"},
		{"SubscribeToTask", "SubscribeToTask"},
		{"CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig"},
		{"GetTaskPushNotificationConfig", "GetTaskPushNotificationConfig"},
		{"ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfigs"},
		{"DeleteTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"},
		{"GetExtendedAgentCard", "GetExtendedAgentCard"},
		// the older spellings of the v1 service
		{"TaskResubscription", "SubscribeToTask"},
		{"TaskSubscription", "SubscribeToTask"},
		{"SetTaskPushNotificationConfig", "CreateTaskPushNotificationConfig"},
		{"ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs"},
		{"GetAuthenticatedExtendedCard", "GetExtendedAgentCard"},
		// not v1 spellings
		{"tasks/resubscribe", ""},
		{"tasks/pushNotificationConfig/set", ""},
		{"tasks/pushNotification/set", ""},
		{"agent/getAuthenticatedExtendedCard", ""},
		{"a2a/task/send", ""},
		{"a2a/capabilities/request", ""},
		{"taskresubscription", ""},
		{"SetTaskPushNotificationConfig ", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			got, ok := V1Name(tt.method)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("V1Name(%q) = %q, %v; want %q", tt.method, got, ok, tt.want)
			}
			if !ok {
				return
			}
			canonical, _ := MethodGeneration(tt.method)
			if v1Names[got] != canonical {
				t.Errorf("V1Name(%q) = %q, which a2a-go/v2 serves as %q; the call's canonical method is %q",
					tt.method, got, v1Names[got], canonical)
			}
			if again, _ := V1Name(got); again != got {
				t.Errorf("V1Name(%q) = %q, not a fixed point", got, again)
			}
		})
	}
}

func TestWithMethod(t *testing.T) {
	const name = "CreateTaskPushNotificationConfig"
	tests := []struct {
		name, elem, want string
		wantErr          error
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"SetTaskPushNotificationConfig","params":{"taskId":"t"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t"}}`, nil},
		{"method first, spaced", "{ \"method\" :\t\"SetTaskPushNotificationConfig\" ,\n\"id\":\"x\",\"jsonrpc\":\"2.0\"}",
			"{ \"method\" :\t\"CreateTaskPushNotificationConfig\" ,\n\"id\":\"x\",\"jsonrpc\":\"2.0\"}", nil},
		{"escaped value", `{"jsonrpc":"2.0","method":"Set\u0054askPushNotificationConfig"}`,
			`{"jsonrpc":"2.0","method":"CreateTaskPushNotificationConfig"}`, nil},
		{"escaped name kept", `{"jsonrpc":"2.0","\u006dethod":"SetTaskPushNotificationConfig"}`,
			`{"jsonrpc":"2.0","\u006dethod":"CreateTaskPushNotificationConfig"}`, nil},
		{"nested method members untouched", `{"params":{"method":"x","m":{"method":"y"}},"method":"SetTaskPushNotificationConfig","id":2,"jsonrpc":"2.0"}`,
			`{"params":{"method":"x","m":{"method":"y"}},"method":"CreateTaskPushNotificationConfig","id":2,"jsonrpc":"2.0"}`, nil},
		{"duplicate", `{"method":"SetTaskPushNotificationConfig","method":"GetTask"}`, "", ErrDuplicateKey},
		{"duplicate escaped", `{"method":"GetTask","\u006Dethod":"SetTaskPushNotificationConfig"}`, "", ErrDuplicateKey},
		{"case variant", `{"method":"SetTaskPushNotificationConfig","Method":"GetTask"}`, "", ErrCaseVariantKey},
		{"case variant first", `{"METHOD":"GetTask","method":"SetTaskPushNotificationConfig"}`, "", ErrCaseVariantKey},
		{"case variant escaped", `{"method":"GetTask","\u004dethod":"x"}`, "", ErrCaseVariantKey},
		{"case variant alone", `{"jsonrpc":"2.0","Method":"SetTaskPushNotificationConfig"}`, "", ErrCaseVariantKey},
		{"no method", `{"jsonrpc":"2.0","id":1}`, "", ErrInvalidRequest},
		{"method not a string", `{"jsonrpc":"2.0","method":["SetTaskPushNotificationConfig"]}`, "", ErrInvalidRequest},
		{"not an object", `["SetTaskPushNotificationConfig"]`, "", ErrInvalidRequest},
		{"broken", `{"method":"SetTaskPushNotificationConfig"`, "", ErrParse},
		{"trailing text", `{"method":"SetTaskPushNotificationConfig"} x`, "", ErrParse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elem := []byte(tt.elem)
			got, err := WithMethod(elem, name)
			if string(elem) != tt.elem {
				t.Fatalf("WithMethod modified its input: %s", elem)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil && err == nil) {
				t.Fatalf("WithMethod(%s) error %v, want %v", tt.elem, err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Fatalf("WithMethod(%s) = %s, want %s", tt.elem, got, tt.want)
			}
			if err != nil {
				return
			}
			reqs, _, err := Decode(got, DefaultLimits())
			if err != nil || reqs[0].Err != nil || reqs[0].Method != name {
				t.Errorf("the rewritten element decodes as %+v, %v; want a %s call", reqs, err, name)
			}
		})
	}
}
