// Package a2agen translates A2A JSON-RPC calls between protocol
// generations, both ways: a call a client makes in A2A v1.0 into the v0.3
// call an agent that serves only v0.3 understands, and that agent's v0.3
// answers (unary results and every stream event) back into v1.0 shapes
// (Translatable, Request, Response); and a v0.3 client's call into the
// v1.0 call of an agent that serves only v1.0, with its answers back into
// v0.3 shapes (TranslatableTo1, RequestTo1, ResponseTo03).
//
// The shapes are those of the specifications: v1.0's a2a.proto in its
// ProtoJSON form (SendMessageResponse {"task"} or {"message"},
// StreamResponse {"task"}, {"message"}, {"statusUpdate"} or
// {"artifactUpdate"}, TASK_STATE_* and ROLE_* enum names, parts with one
// content member text, raw, url or data), and v0.3's JSON-RPC types
// (results told apart by "kind", lower-case roles and states, parts with
// "kind").
//
// # Methods
//
//	v1.0                              v0.3
//	SendMessage                       message/send
//	SendStreamingMessage              message/stream
//	GetTask                           tasks/get
//	CancelTask                        tasks/cancel
//	SubscribeToTask                   tasks/resubscribe
//	CreateTaskPushNotificationConfig  tasks/pushNotificationConfig/set
//	GetTaskPushNotificationConfig     tasks/pushNotificationConfig/get
//	ListTaskPushNotificationConfigs   tasks/pushNotificationConfig/list
//	DeleteTaskPushNotificationConfig  tasks/pushNotificationConfig/delete
//
// The earlier spellings of the v1 service the gateway accepts
// (jsonrpc.V1Name: SetTaskPushNotificationConfig,
// ListTaskPushNotificationConfig, TaskResubscription, TaskSubscription)
// are translated as the v1.0 names they stand for, and their answers
// take the same shapes. A push config list's page size or token is
// refused, as v0.3 lists every config in one answer.
//
// Every other method has no translation (ListTasks and the extended card
// have no v0.3 equivalent): [Translatable] says so and the caller refuses
// the call.
//
// From v0.3 to v1.0 ([TranslatableTo1]) the same pairs apply, and v0.3's
// tasks/pushNotificationConfig/list is v1.0's
// ListTaskPushNotificationConfigs; the v0.1 names are not translated.
//
// A v1.0 status update has no "final" flag: translated to v0.3 it is final
// when its state ends a v1.0 stream (a terminal state, input-required or
// auth-required). v0.3's "blocking" false is v1.0's returnImmediately.
// A deletion's answer without a result (as a2a-go/v2 writes it) is read
// as v1.0's empty result. Request metadata v1.0 has no place for
// (tasks/get's and tasks/resubscribe's, the push configuration reads') is
// refused unless it is empty. A push config list whose answer has a next
// page is refused: v0.3 lists every config at once.
//
// # Nothing is lost silently
//
// Every member of a request and of an answer is either translated or
// refused: a member the other generation cannot express (a text part's
// media type other than text/plain, a non-object data part, a tenant, a
// push configuration with several authentication schemes, an unknown
// member) fails the translation with an *Error that says where and why,
// wrapping [ErrUntranslatable]; a value of the wrong type wraps
// [ErrMalformed]. Metadata and data values are opaque and copied as they
// are. Only what one generation encodes in structure rather than in data
// is dropped: v0.3's "kind" discriminators, and the "final" flag of a
// status update, which v1.0 expresses by ending the stream.
//
// The package is pure: no I/O, no clock, no state.
package a2agen
