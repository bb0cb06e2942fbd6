package jsonrpc

// CanonicalMethods returns every canonical method name MethodGeneration
// maps to, A2A's first and then the capability extension's: the names
// that metrics count calls by.
func CanonicalMethods() []string {
	return []string{
		MethodSendMessage, MethodSendStreamingMessage, MethodGetTask, MethodListTasks,
		MethodCancelTask, MethodSubscribeToTask, MethodSetTaskPushNotificationConfig,
		MethodGetTaskPushNotificationConfig, MethodListTaskPushNotificationConfig,
		MethodDeleteTaskPushNotificationConfig, MethodGetAuthenticatedExtendedCard,
		MethodCapabilitiesRequest, MethodCapabilitiesAttenuate, MethodCapabilitiesRevoke,
		MethodSkillInvoke, MethodTaskSend, MethodApprovalStatus,
	}
}
