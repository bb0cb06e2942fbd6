package a2afront

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/a2atasks"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Capability-gated messaging. An agent configured with messages:
// {require_capability: true} is one that never heard of capabilities but
// whose messages the gateway scopes anyway: every send and every
// follow-up on one of its tasks must present a capability for that agent
// (by id or token, in the A2A-Capability header, in params, or in
// metadata under the extension's URI), held by the caller and live. A
// send must also be within the capability's operations: the operation of
// the skill it names (in the extension's data, metadata or a data part,
// all alike: skills.go), or the agent's messaging operation. The call then goes upstream scoped to that capability: its
// context in the trusted headers, handles in the message rewritten to the
// real ids, and every answer mapped back (idmap.go).

// EventMessage is the audit event of a decision on a gated message or
// follow-up.
const EventMessage = "capability.message"

// gated reports whether messages to a must present a capability.
func gated(a *agent) bool {
	return a.cfg.Messages != nil && a.cfg.Messages.RequireCapability
}

// followUp reports whether canonical is a call on existing tasks, which a
// gated agent scopes like a message: one naming a task, or a listing.
func followUp(canonical string) bool {
	return a2atasks.NamesTask(canonical) || canonical == jsonrpc.MethodListTasks
}

// messageOperation is the operation a gated send needs: the one its named
// skill performs (wherever it names it, skills.go), or the agent's
// messaging operation when it names none.
func messageOperation(a *agent, x extData, params map[string]json.RawMessage) (skill, op string, e *jsonrpc.Error) {
	skill, member, e := sendSkill(x, params)
	if e != nil || skill == "" {
		return "", a.cfg.Messages.Operation, e
	}
	op, ok := a.cfg.Skills[skill]
	if !ok {
		return skill, "", invalidMember(member, "unknown skill: "+skill, map[string]any{"detail": "unknown_skill"})
	}
	return skill, op, nil
}

// gate checks the capability a call to a gated agent presents and, when
// it is usable for op ("" for any), scopes the call to it. It returns the
// capability's claims once they are loaded, for the audit, refused or not.
func (f *Front) gate(ctx context.Context, c *call, x extData, op string) (*captoken.Claims, *jsonrpc.Error) {
	id, _, token, e := x.capability(c.http)
	if e != nil {
		return nil, e
	}
	if id == "" && token == "" {
		return nil, capErr(jsonrpc.CodeCapabilityRequired,
			"messages to agent "+c.agent.cfg.Name+" need a capability (capabilityId, or a token in the A2A-Capability header)", nil)
	}
	return f.scopeTo(ctx, c, enforce.Request{Audience: c.agent.cfg.Name, CapabilityID: id, Token: token, Operation: op})
}

// gateSend checks the capability a send to a gated agent presents: it
// must cover the operation of the skill the message names, or the
// agent's messaging operation. The handles in the message are rewritten
// later, once the extension's data is removed (scopeMessage).
func (f *Front) gateSend(ctx context.Context, c *call, x extData, params map[string]json.RawMessage) *jsonrpc.Error {
	skill, op, e := messageOperation(c.agent, x, params)
	var claims *captoken.Claims
	if e == nil {
		claims, e = f.gate(ctx, c, x, op)
	}
	f.auditMessage(ctx, c, claims, skill, op, e)
	return e
}

// gateFollowUp scopes a follow-up on a gated agent's task to a usable
// capability for the agent. The capability's members are removed from
// the forwarded call: a token is a bearer credential.
func (f *Front) gateFollowUp(ctx context.Context, c *call) *jsonrpc.Error {
	var params map[string]json.RawMessage
	if len(c.req.Params) > 0 && json.Unmarshal(c.req.Params, &params) != nil {
		return invalidMember("params", "params must be an object", nil)
	}
	x, e := extensionData(params)
	if e == nil {
		e = x.refuseDelegation()
	}
	var claims *captoken.Claims
	if e == nil {
		claims, e = f.gate(ctx, c, x, "")
	}
	f.auditMessage(ctx, c, claims, "", "", e)
	if e != nil {
		return e
	}
	if len(x.Members) > 0 {
		c.req.Raw = encodeRequest(c.req.ID, c.req.Method, delegatedParams(params, "", nil))
	}
	return nil
}

// auditMessage records the decision on a gated call.
func (f *Front) auditMessage(ctx context.Context, c *call, claims *captoken.Claims, skill, op string, e *jsonrpc.Error) {
	decision := "allowed"
	if e != nil {
		decision = reasonOf(e)
	}
	attrs := []slog.Attr{slog.String("caller", c.principal.ID), slog.String("agent", c.agent.cfg.Name),
		slog.String("method", c.req.Method), slog.String("skill", skill), slog.String("operation", op),
		slog.String("decision", decision)}
	f.audit(ctx, EventMessage, append(attrs, claimAttrs(claims)...)...)
}
