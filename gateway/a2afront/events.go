package a2afront

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/sep"
)

// Audit events. Each carries the principal, the holder, the agent, the
// grant, the operations, the handles (never real resource ids), the
// capability and parent ids, the purpose, the policy revision and the
// decision with its reason word.
const (
	EventIssue     = issue.EventIssue
	EventAttenuate = issue.EventAttenuate
	EventInvoke    = "capability.invoke"
	EventRevoke    = issue.EventRevoke
)

// audit records one event. The record goes straight to the audit
// handler, stamped with the gateway's clock: slog.Logger would also look
// up the caller's program counter on every call, which the audit trail
// never records, on the path of every invocation.
func (f *Front) audit(ctx context.Context, event string, attrs ...slog.Attr) {
	if f.deps.Audit == nil {
		return
	}
	h := f.deps.Audit.Handler()
	if ah, ok := h.(*audit.Handler); ok {
		_ = ah.Event(ctx, f.deps.Now(), event, attrs...) // it reports its own failures
		return
	}
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	r := slog.NewRecord(f.deps.Now(), slog.LevelInfo, event, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r) // as Logger.LogAttrs: the handler reports its own failures
}

func claimAttrs(c *captoken.Claims) []slog.Attr { return issue.ClaimAttrs(c) }

// auditInvoke records one invocation decision. It is on every call's path,
// so it carries what identifies the decision (the capability, the
// principal and holder, the skill and its operation, the handles this call
// named) rather than every list in the claims, which the capability's own
// issue and attenuate events already hold.
func (f *Front) auditInvoke(ctx context.Context, c *call, p sep.InvokeParams, claims *captoken.Claims, decision string) {
	// The attributes in key order, which the audit handler then only
	// checks instead of sorting: this event is on every invocation's path.
	agent, caller := slog.String("agent", c.agent.cfg.Name), slog.String("caller", c.principal.ID)
	dec, handles := slog.String("decision", decision), slog.Any("handles", handlesNamed(p.Arguments))
	op, requested := slog.String("operation", c.agent.cfg.Skills[p.Skill]), slog.String("requested_capability_id", p.CapabilityID)
	skill := slog.String("skill", p.Skill)
	if claims == nil {
		f.audit(ctx, EventInvoke, agent, caller, dec, handles, op, requested, skill)
		return
	}
	f.audit(ctx, EventInvoke, agent, caller, slog.String("capability_id", claims.CapabilityID), dec,
		slog.Int("depth", claims.Depth), slog.String("grant", claims.Grant), handles,
		slog.String("holder", claims.Holder), op, slog.String("parent_id", claims.ParentCapabilityID),
		slog.String("policy_revision", claims.PolicyRevision), slog.String("principal", claims.Principal),
		slog.String("purpose", claims.Purpose), requested, skill)
}

// handlesNamed is the handle or handles an invocation named, as a list
// (the shape every other event gives handles in); empty when it named
// none, or named them in a shape the gateway refuses anyway.
func handlesNamed(args map[string]json.RawMessage) []string {
	if raw, ok := args[enforce.ArgHandle]; ok {
		if h, ok := stringValue(raw); ok {
			return []string{h}
		}
		return []string{}
	}
	var hs []string
	if raw, ok := args[enforce.ArgHandles]; ok && json.Unmarshal(raw, &hs) == nil {
		return hs
	}
	return []string{}
}
