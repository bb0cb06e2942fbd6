package gateway

import (
	"context"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// methodHandler decides one call to a method the gateway handles itself.
type methodHandler func(ctx context.Context, c *call) outcome

// extensionMethods returns the handlers for the capability-negotiation
// extension methods. A method listed here is never forwarded as-is.
func (g *Gateway) extensionMethods() map[string]methodHandler {
	return map[string]methodHandler{
		jsonrpc.MethodCapabilitiesRequest:   g.capabilitiesRequest,
		jsonrpc.MethodCapabilitiesAttenuate: g.capabilitiesAttenuate,
		jsonrpc.MethodCapabilitiesRevoke:    g.capabilitiesRevoke,
		jsonrpc.MethodSkillInvoke:           g.skillInvoke,
		jsonrpc.MethodTaskSend:              g.notEnabled,
	}
}

// notEnabled refuses an extension method this gateway does not serve, so
// that a capability call is never passed through unchecked.
func (g *Gateway) notEnabled(_ context.Context, c *call) outcome {
	return fail(c.req.ID, &jsonrpc.Error{
		Code:    jsonrpc.CodeMethodNotFound,
		Message: "method not available on this gateway: " + c.canonical,
	})
}
