package gateway

import (
	"context"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// methodHandler decides one call to a method the gateway handles itself.
type methodHandler func(ctx context.Context, c *call) outcome

// extensionMethods returns the handlers of the methods the gateway decides
// itself: the capability-negotiation extension methods (never forwarded
// as-is), the sends (which may delegate capabilities), and the methods
// whose receiving agent's card must be checked first (streaming, push
// notifications). Every other known method is forwarded.
func (g *Gateway) extensionMethods() map[string]methodHandler {
	return map[string]methodHandler{
		jsonrpc.MethodCapabilitiesRequest:              g.capabilitiesRequest,
		jsonrpc.MethodCapabilitiesAttenuate:            g.capabilitiesAttenuate,
		jsonrpc.MethodCapabilitiesRevoke:               g.capabilitiesRevoke,
		jsonrpc.MethodSkillInvoke:                      g.skillInvoke,
		jsonrpc.MethodTaskSend:                         g.send,
		jsonrpc.MethodSendMessage:                      g.send,
		jsonrpc.MethodSendStreamingMessage:             g.send,
		jsonrpc.MethodSubscribeToTask:                  g.checkedForward,
		jsonrpc.MethodSetTaskPushNotificationConfig:    g.checkedForward,
		jsonrpc.MethodGetTaskPushNotificationConfig:    g.checkedForward,
		jsonrpc.MethodListTaskPushNotificationConfig:   g.checkedForward,
		jsonrpc.MethodDeleteTaskPushNotificationConfig: g.checkedForward,
	}
}

// checkedForward forwards a call once the receiving agent's card says it
// can serve it.
func (g *Gateway) checkedForward(ctx context.Context, c *call) outcome {
	if e := g.hopCheck(ctx, c, false); e != nil {
		return fail(c.req.ID, e)
	}
	return outcome{forward: c.req.Raw, cc: callerContext(c)}
}
