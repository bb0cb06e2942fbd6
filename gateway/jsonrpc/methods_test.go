package jsonrpc

import (
	"testing"
)

func TestMethodGeneration(t *testing.T) {
	tests := []struct {
		method, want string
		streaming    bool
	}{
		// A2A v1.0
		{"SendMessage", MethodSendMessage, false},
		{"SendStreamingMessage", MethodSendStreamingMessage, true},
		{"GetTask", MethodGetTask, false},
		{"ListTasks", MethodListTasks, false},
		{"CancelTask", MethodCancelTask, false},
		{"SubscribeToTask", MethodSubscribeToTask, true},
		{"TaskResubscription", MethodSubscribeToTask, true},
		{"TaskSubscription", MethodSubscribeToTask, true},
		{"SetTaskPushNotificationConfig", MethodSetTaskPushNotificationConfig, false},
		{"CreateTaskPushNotificationConfig", MethodSetTaskPushNotificationConfig, false},
		{"GetTaskPushNotificationConfig", MethodGetTaskPushNotificationConfig, false},
		{"ListTaskPushNotificationConfig", MethodListTaskPushNotificationConfig, false},
		{"ListTaskPushNotificationConfigs", MethodListTaskPushNotificationConfig, false},
		{"DeleteTaskPushNotificationConfig", MethodDeleteTaskPushNotificationConfig, false},
		{"GetAuthenticatedExtendedCard", MethodGetAuthenticatedExtendedCard, false},
		{"GetExtendedAgentCard", MethodGetAuthenticatedExtendedCard, false},
		// A2A v0.3
		{"message/send", MethodSendMessage, false},
		{"message/stream", MethodSendStreamingMessage, true},
		{"tasks/get", MethodGetTask, false},
		{"tasks/cancel", MethodCancelTask, false},
		{"tasks/resubscribe", MethodSubscribeToTask, true},
		{"tasks/pushNotificationConfig/set", MethodSetTaskPushNotificationConfig, false},
		{"tasks/pushNotificationConfig/get", MethodGetTaskPushNotificationConfig, false},
		{"tasks/pushNotificationConfig/list", MethodListTaskPushNotificationConfig, false},
		{"tasks/pushNotificationConfig/delete", MethodDeleteTaskPushNotificationConfig, false},
		{"agent/getAuthenticatedExtendedCard", MethodGetAuthenticatedExtendedCard, false},
		// A2A v0.1
		{"tasks/send", MethodSendMessage, false},
		{"tasks/sendSubscribe", MethodSendStreamingMessage, true},
		{"tasks/pushNotification/set", MethodSetTaskPushNotificationConfig, false},
		{"tasks/pushNotification/get", MethodGetTaskPushNotificationConfig, false},
		// SEP
		{"a2a/capabilities/request", MethodCapabilitiesRequest, false},
		{"a2a/capabilities/attenuate", MethodCapabilitiesAttenuate, false},
		{"a2a/capabilities/revoke", MethodCapabilitiesRevoke, false},
		{"a2a/skill/invoke", MethodSkillInvoke, false},
		{"a2a/task/send", MethodTaskSend, false},
		{"a2a/capabilities/approval/status", MethodApprovalStatus, false},
		{"a2a/capabilities/approval/status/", "", false},
		// unknown: exact match only
		{"", "", false},
		{"sendmessage", "", false},
		{"Message/Send", "", false},
		{"message/send ", "", false},
		{"a2a/skill/invoke/", "", false},
		{"A2A/skill/invoke", "", false},
		{"rpc.discover", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			got, known := MethodGeneration(tt.method)
			if got != tt.want || known != (tt.want != "") {
				t.Errorf("MethodGeneration(%q) = %q, %v; want %q", tt.method, got, known, tt.want)
			}
			if s := IsStreaming(tt.method); s != tt.streaming {
				t.Errorf("IsStreaming(%q) = %v, want %v", tt.method, s, tt.streaming)
			}
		})
	}
}

// TestMethodInterning checks that Decode returns known method names
// without allocating a new string for them, and still decodes escapes.
func TestMethodInterning(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"message\/send"}`)
	reqs, _, err := Decode(body, DefaultLimits())
	if err != nil || reqs[0].Method != "message/send" {
		t.Fatalf("Decode() = %+v, %v", reqs, err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := lookupMethod([]byte("a2a/skill/invoke")); !err {
			t.Fatal("unknown")
		}
	})
	if allocs != 0 {
		t.Errorf("lookupMethod allocates %v times", allocs)
	}
}
