package documents

// The v0.3 method names a2asrv understands.
const (
	MethodMessageSend   = "message/send"
	MethodMessageStream = "message/stream"
	MethodTasksGet      = "tasks/get"
	MethodTasksCancel   = "tasks/cancel"
)

// The capgate extension methods the documents agent serves itself.
const (
	MethodSkillInvoke      = "a2a/skill/invoke"
	MethodResourcesResolve = "a2a/resources/resolve"
)

// canonicalMethods maps every accepted standard method name, of any A2A
// generation, to its v0.3 name. It is a function rather than a package
// variable so that nothing package-level can be mutated.
func canonicalMethods() map[string]string {
	return map[string]string{
		// v1.0
		"SendMessage":                      MethodMessageSend,
		"SendStreamingMessage":             MethodMessageStream,
		"GetTask":                          MethodTasksGet,
		"CancelTask":                       MethodTasksCancel,
		"SubscribeToTask":                  "tasks/resubscribe",
		"GetExtendedAgentCard":             "agent/getAuthenticatedExtendedCard",
		"SetTaskPushNotificationConfig":    "tasks/pushNotificationConfig/set",
		"CreateTaskPushNotificationConfig": "tasks/pushNotificationConfig/set",
		"GetTaskPushNotificationConfig":    "tasks/pushNotificationConfig/get",
		"ListTaskPushNotificationConfig":   "tasks/pushNotificationConfig/list",
		"ListTaskPushNotificationConfigs":  "tasks/pushNotificationConfig/list",
		"DeleteTaskPushNotificationConfig": "tasks/pushNotificationConfig/delete",
		// v0.3
		MethodMessageSend:                     MethodMessageSend,
		MethodMessageStream:                   MethodMessageStream,
		MethodTasksGet:                        MethodTasksGet,
		MethodTasksCancel:                     MethodTasksCancel,
		"tasks/resubscribe":                   "tasks/resubscribe",
		"agent/getAuthenticatedExtendedCard":  "agent/getAuthenticatedExtendedCard",
		"tasks/pushNotificationConfig/set":    "tasks/pushNotificationConfig/set",
		"tasks/pushNotificationConfig/get":    "tasks/pushNotificationConfig/get",
		"tasks/pushNotificationConfig/list":   "tasks/pushNotificationConfig/list",
		"tasks/pushNotificationConfig/delete": "tasks/pushNotificationConfig/delete",
		// v0.1 / v0.2
		"tasks/send":          MethodMessageSend,
		"tasks/sendSubscribe": MethodMessageStream,
		// SEP delegated send, as the gateway may forward it.
		"a2a/task/send": MethodMessageSend,
	}
}

// CanonicalMethod returns the v0.3 name of a standard A2A method given in
// any generation's spelling (v1.0 "SendMessage", v0.3 "message/send",
// v0.1 "tasks/send", SEP "a2a/task/send", …), and false when method is not
// a standard method. Names are matched exactly: "sendmessage" is not
// "SendMessage".
func CanonicalMethod(method string) (string, bool) {
	c, ok := canonicalMethods()[method]
	return c, ok
}

// IsSendMethod reports whether the canonical method carries a message
// (message/send or message/stream), whose params [NormalizeSendParams]
// should rewrite.
func IsSendMethod(canonical string) bool {
	return canonical == MethodMessageSend || canonical == MethodMessageStream
}
