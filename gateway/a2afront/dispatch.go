package a2afront

import (
	"context"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// The dispatcher: every call, batched or not, is decided here. decide
// refuses what cannot be translated to the agent's generation, decideCall
// routes by method (unknown methods are refused, never forwarded), after
// the task-ownership gate and, on a gated agent, the follow-up gate; the
// method table names the handlers of the methods the front decides
// itself, and every other known method is forwarded once the agent's
// card says it can serve it.

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
		jsonrpc.MethodSetTaskPushNotificationConfig:    f.pushSet,
		jsonrpc.MethodGetTaskPushNotificationConfig:    f.checkedForward,
		jsonrpc.MethodListTaskPushNotificationConfig:   f.checkedForward,
		jsonrpc.MethodDeleteTaskPushNotificationConfig: f.pushDelete,
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

// decide decides one call (decideCall), then translates what is to be
// forwarded for an agent that needs the call in another generation, or
// names a call of the v1 service as v1.0 names it (inV1Name). The
// translation runs after every decision, on the body the front would
// forward, so the checks see the caller's own call and what the
// delegation minted travels translated. A call that cannot be translated
// is refused before it is decided: no delegation minted, no "allowed"
// audited, for a call that never leaves.
func (f *Front) decide(ctx context.Context, c *call) outcome {
	t, ok := f.translationOf(ctx, c)
	if ok {
		if _, e := translateRequest(c.req.Raw, t); e != nil {
			return fail(c.req.ID, e)
		}
	}
	out := f.decideCall(ctx, c)
	if out.forward == nil {
		return out
	}
	if !ok {
		return inV1Name(c, out)
	}
	body, e := translateRequest(out.forward, t)
	if e != nil {
		return fail(c.req.ID, e)
	}
	c.translated, c.to1 = c.req.Method, t.to1
	out.forward = body
	return out
}

// inV1Name forwards a call of the v1 service that is not translated
// under the name the v1.0 specification gives its method, whatever
// spelling the caller used (jsonrpc.V1Name): a v1.0 agent such as
// a2a-go/v2's knows no other ("TaskResubscription" is SubscribeToTask
// there). Only the forwarded body's method changes; the call was decided,
// audited and counted under the caller's own name and its canonical
// method, and its answer has the same shape under either name. A call
// translated for a v0.3 agent gets its v0.3 name from translateRequest.
func inV1Name(c *call, out outcome) outcome {
	name, ok := jsonrpc.V1Name(c.req.Method)
	if !ok || name == c.req.Method {
		return out
	}
	body, err := jsonrpc.WithMethod(out.forward, name)
	if err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	out.forward = body
	return out
}

// decideCall routes one call by its method. Methods the gateway does not know
// are refused, never forwarded: an unknown method could be a skill call in
// disguise.
func (f *Front) decideCall(ctx context.Context, c *call) outcome {
	if c.req.Err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(c.req.Err))
	}
	canonical, known := jsonrpc.MethodGeneration(c.req.Method)
	if !known {
		return fail(c.req.ID, &jsonrpc.Error{
			Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + c.req.Method,
		})
	}
	c.canonical = canonical
	if e := f.notFrozen(ctx, c); e != nil {
		return fail(c.req.ID, e)
	}
	if e := f.taskGate(ctx, c); e != nil {
		return fail(c.req.ID, e)
	}
	if gated(c.agent) && followUp(canonical) {
		if e := f.gateFollowUp(ctx, c); e != nil {
			return fail(c.req.ID, e)
		}
	}
	if h, ok := f.methods[canonical]; ok {
		return h(ctx, c)
	}
	if e := versionCheck(ctx, c); e != nil {
		return fail(c.req.ID, e)
	}
	return forwardAs(c)
}

// notFrozen refuses every call that could reach a frozen agent, or that
// a frozen principal makes, capability or not: an ambient invocation, a
// plain send or a task read is stopped as a scoped call is. The
// capability-negotiation methods decide the freeze themselves (issuance
// refuses with its own code; a revocation or an approval's status reach
// no agent and stay open to a frozen principal).
func (f *Front) notFrozen(ctx context.Context, c *call) *jsonrpc.Error {
	switch c.canonical {
	case jsonrpc.MethodCapabilitiesRequest, jsonrpc.MethodCapabilitiesAttenuate,
		jsonrpc.MethodCapabilitiesRevoke, jsonrpc.MethodApprovalStatus:
		return nil
	}
	if r := f.checks.NotFrozen(ctx, c.agent.cfg.Name, c.principal.ID); r != nil {
		return wireError(r)
	}
	return nil
}
