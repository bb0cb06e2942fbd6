package jsonrpc

// Canonical method names. A2A has renamed its methods across three
// generations (v0.1, v0.3, v1.0); MethodGeneration maps every known name to
// one of these, so policy and dispatch are written once. The A2A methods take
// their v1.0 names; the SEP capability extension methods keep their own.
const (
	MethodSendMessage                      = "SendMessage"
	MethodSendStreamingMessage             = "SendStreamingMessage"
	MethodGetTask                          = "GetTask"
	MethodListTasks                        = "ListTasks"
	MethodCancelTask                       = "CancelTask"
	MethodSubscribeToTask                  = "SubscribeToTask"
	MethodSetTaskPushNotificationConfig    = "SetTaskPushNotificationConfig"
	MethodGetTaskPushNotificationConfig    = "GetTaskPushNotificationConfig"
	MethodListTaskPushNotificationConfig   = "ListTaskPushNotificationConfig"
	MethodDeleteTaskPushNotificationConfig = "DeleteTaskPushNotificationConfig"
	MethodGetAuthenticatedExtendedCard     = "GetAuthenticatedExtendedCard"

	MethodCapabilitiesRequest   = "a2a/capabilities/request"
	MethodCapabilitiesAttenuate = "a2a/capabilities/attenuate"
	MethodCapabilitiesRevoke    = "a2a/capabilities/revoke"
	MethodSkillInvoke           = "a2a/skill/invoke"
	MethodTaskSend              = "a2a/task/send"
	// MethodApprovalStatus reads where a request waiting for human
	// approval stands; the gateway answers it and never forwards it.
	MethodApprovalStatus = "a2a/capabilities/approval/status"
)

// MethodGeneration maps a method name of any A2A generation, or of the SEP
// capability extension, to its canonical name. known is false, and
// canonical empty, for any other name. Matching is exact: "sendmessage" is
// not SendMessage.
func MethodGeneration(method string) (canonical string, known bool) {
	_, canonical, known = lookupMethod([]byte(method))
	return canonical, known
}

// IsStreaming reports whether a method answers with a server-sent event
// stream rather than one JSON-RPC response: message/stream,
// SendStreamingMessage, tasks/sendSubscribe, and the resubscription methods.
func IsStreaming(method string) bool {
	canonical, _ := MethodGeneration(method)
	return canonical == MethodSendStreamingMessage || canonical == MethodSubscribeToTask
}

// V1Name returns the name an A2A v1.0 agent knows a v1 method by, for
// any spelling of the v1 service the gateway accepts: the name of the
// v1.0 specification's JSON-RPC binding, which a2a-go/v2's server
// dispatches on ("SetTaskPushNotificationConfig" is
// CreateTaskPushNotificationConfig there, "TaskResubscription"
// SubscribeToTask). ok is false for a name that is not a v1 spelling (a
// v0.3 or v0.1 name, a SEP method, an unknown name). The canonical names
// policy and dispatch use are not these: MethodGeneration is unchanged.
func V1Name(method string) (name string, ok bool) {
	_, canonical, ok := lookupV1([]byte(method))
	if !ok {
		return "", false
	}
	switch canonical {
	case MethodSetTaskPushNotificationConfig:
		return "CreateTaskPushNotificationConfig", true
	case MethodListTaskPushNotificationConfig:
		return "ListTaskPushNotificationConfigs", true
	case MethodGetAuthenticatedExtendedCard:
		return "GetExtendedAgentCard", true
	}
	return canonical, true
}

// lookupMethod returns the interned name and the canonical name of a known
// method. Taking bytes lets Decode intern names without allocating.
func lookupMethod(m []byte) (name, canonical string, ok bool) {
	if name, canonical, ok = lookupV1(m); ok {
		return name, canonical, ok
	}
	if name, canonical, ok = lookupV03(m); ok {
		return name, canonical, ok
	}
	if name, canonical, ok = lookupV01(m); ok {
		return name, canonical, ok
	}
	return lookupSEP(m)
}

// lookupV1 knows the A2A v1.0 names, and as aliases the other spellings of
// the v1 service (a2a-go's gRPC names, the later card and push-config names).
func lookupV1(m []byte) (name, canonical string, ok bool) {
	switch string(m) {
	case "SendMessage":
		return "SendMessage", MethodSendMessage, true
	case "SendStreamingMessage":
		return "SendStreamingMessage", MethodSendStreamingMessage, true
	case "GetTask":
		return "GetTask", MethodGetTask, true
	case "ListTasks":
		return "ListTasks", MethodListTasks, true
	case "CancelTask":
		return "CancelTask", MethodCancelTask, true
	case "SubscribeToTask":
		return "SubscribeToTask", MethodSubscribeToTask, true
	case "TaskResubscription":
		return "TaskResubscription", MethodSubscribeToTask, true
	case "TaskSubscription":
		return "TaskSubscription", MethodSubscribeToTask, true
	case "SetTaskPushNotificationConfig":
		return "SetTaskPushNotificationConfig", MethodSetTaskPushNotificationConfig, true
	case "CreateTaskPushNotificationConfig":
		return "CreateTaskPushNotificationConfig", MethodSetTaskPushNotificationConfig, true
	case "GetTaskPushNotificationConfig":
		return "GetTaskPushNotificationConfig", MethodGetTaskPushNotificationConfig, true
	case "ListTaskPushNotificationConfig":
		return "ListTaskPushNotificationConfig", MethodListTaskPushNotificationConfig, true
	case "ListTaskPushNotificationConfigs":
		return "ListTaskPushNotificationConfigs", MethodListTaskPushNotificationConfig, true
	case "DeleteTaskPushNotificationConfig":
		return "DeleteTaskPushNotificationConfig", MethodDeleteTaskPushNotificationConfig, true
	case "GetAuthenticatedExtendedCard":
		return "GetAuthenticatedExtendedCard", MethodGetAuthenticatedExtendedCard, true
	case "GetExtendedAgentCard":
		return "GetExtendedAgentCard", MethodGetAuthenticatedExtendedCard, true
	}
	return "", "", false
}

// lookupV03 knows the A2A v0.3 names, some of which v0.1 shares.
func lookupV03(m []byte) (name, canonical string, ok bool) {
	switch string(m) {
	case "message/send":
		return "message/send", MethodSendMessage, true
	case "message/stream":
		return "message/stream", MethodSendStreamingMessage, true
	case "tasks/get":
		return "tasks/get", MethodGetTask, true
	case "tasks/cancel":
		return "tasks/cancel", MethodCancelTask, true
	case "tasks/resubscribe":
		return "tasks/resubscribe", MethodSubscribeToTask, true
	case "tasks/pushNotificationConfig/set":
		return "tasks/pushNotificationConfig/set", MethodSetTaskPushNotificationConfig, true
	case "tasks/pushNotificationConfig/get":
		return "tasks/pushNotificationConfig/get", MethodGetTaskPushNotificationConfig, true
	case "tasks/pushNotificationConfig/list":
		return "tasks/pushNotificationConfig/list", MethodListTaskPushNotificationConfig, true
	case "tasks/pushNotificationConfig/delete":
		return "tasks/pushNotificationConfig/delete", MethodDeleteTaskPushNotificationConfig, true
	case "agent/getAuthenticatedExtendedCard":
		return "agent/getAuthenticatedExtendedCard", MethodGetAuthenticatedExtendedCard, true
	}
	return "", "", false
}

// lookupV01 knows the A2A v0.1 names that v0.3 dropped.
func lookupV01(m []byte) (name, canonical string, ok bool) {
	switch string(m) {
	case "tasks/send":
		return "tasks/send", MethodSendMessage, true
	case "tasks/sendSubscribe":
		return "tasks/sendSubscribe", MethodSendStreamingMessage, true
	case "tasks/pushNotification/set":
		return "tasks/pushNotification/set", MethodSetTaskPushNotificationConfig, true
	case "tasks/pushNotification/get":
		return "tasks/pushNotification/get", MethodGetTaskPushNotificationConfig, true
	}
	return "", "", false
}

// lookupSEP knows the SEP capability extension methods.
func lookupSEP(m []byte) (name, canonical string, ok bool) {
	switch string(m) {
	case MethodCapabilitiesRequest:
		return MethodCapabilitiesRequest, MethodCapabilitiesRequest, true
	case MethodCapabilitiesAttenuate:
		return MethodCapabilitiesAttenuate, MethodCapabilitiesAttenuate, true
	case MethodCapabilitiesRevoke:
		return MethodCapabilitiesRevoke, MethodCapabilitiesRevoke, true
	case MethodSkillInvoke:
		return MethodSkillInvoke, MethodSkillInvoke, true
	case MethodTaskSend:
		return MethodTaskSend, MethodTaskSend, true
	case MethodApprovalStatus:
		return MethodApprovalStatus, MethodApprovalStatus, true
	}
	return "", "", false
}
