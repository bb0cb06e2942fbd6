package a2afront

import (
	"context"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// methodHandler decides one call to a method the front decides itself.
type methodHandler func(ctx context.Context, c *call) outcome

// methodTable returns the handlers of the methods the front decides
// itself: the capability-negotiation extension methods (never forwarded
// as-is), the sends (which may delegate capabilities), and the methods
// whose receiving agent's card must be checked first (streaming, push
// notifications). Every other known method is forwarded on the caller's
// authority.
func (f *Front) methodTable() map[string]methodHandler {
	return map[string]methodHandler{
		jsonrpc.MethodCapabilitiesRequest:              f.capabilitiesRequest,
		jsonrpc.MethodCapabilitiesAttenuate:            f.capabilitiesAttenuate,
		jsonrpc.MethodCapabilitiesRevoke:               f.capabilitiesRevoke,
		jsonrpc.MethodApprovalStatus:                   f.approvalStatus,
		jsonrpc.MethodSkillInvoke:                      f.skillInvoke,
		jsonrpc.MethodTaskSend:                         f.send,
		jsonrpc.MethodSendMessage:                      f.send,
		jsonrpc.MethodSendStreamingMessage:             f.send,
		jsonrpc.MethodSubscribeToTask:                  f.checkedForward,
		jsonrpc.MethodSetTaskPushNotificationConfig:    f.checkedForward,
		jsonrpc.MethodGetTaskPushNotificationConfig:    f.checkedForward,
		jsonrpc.MethodListTaskPushNotificationConfig:   f.checkedForward,
		jsonrpc.MethodDeleteTaskPushNotificationConfig: f.checkedForward,
	}
}

// checkedForward forwards a call once the receiving agent's card says it
// can serve it.
func (f *Front) checkedForward(ctx context.Context, c *call) outcome {
	if e := f.hopCheck(ctx, c, false); e != nil {
		return fail(c.req.ID, e)
	}
	return forwardAs(c)
}
