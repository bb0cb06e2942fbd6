package a2afront

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// Audit events. Each carries the principal, the holder, the agent, the
// grant, the operations, the handles (never real resource ids), the
// capability and parent ids, the purpose, the policy revision and the
// decision with its reason word.
const (
	EventIssue     = "capability.issue"
	EventAttenuate = "capability.attenuate"
	EventInvoke    = "capability.invoke"
	EventRevoke    = "capability.revoke"
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

func claimAttrs(c *captoken.Claims) []slog.Attr {
	if c == nil {
		return nil
	}
	return []slog.Attr{
		slog.String("capability_id", c.CapabilityID), slog.String("parent_id", c.ParentCapabilityID),
		slog.String("principal", c.Principal), slog.String("holder", c.Holder),
		slog.String("grant", c.Grant), slog.Any("operations", c.Operations),
		slog.Any("handles", c.Handles), slog.Int("depth", c.Depth),
		slog.String("purpose", c.Purpose), slog.String("policy_revision", c.PolicyRevision),
		slog.Any("revocation_ids", c.RevocationIDs()),
	}
}

func (f *Front) auditIssue(ctx context.Context, c *call, p sep.RequestParams, d policy.Decision, caps []sep.Capability, decision string) {
	ids := make([]string, 0, len(caps))
	for _, cp := range caps {
		ids = append(ids, cp.ID)
	}
	rules := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		rules = append(rules, m.ID)
	}
	f.audit(ctx, EventIssue,
		slog.String("principal", c.principal.ID), slog.String("agent", c.agent.cfg.Name),
		slog.Any("grants", p.Grants), slog.String("purpose", p.Purpose),
		requestAttr(f.policyInput(c, p, time.Time{}), f.deps.Policy.Current(), p.ApprovalID),
		slog.String("policy_revision", d.Revision), slog.Any("rules", rules),
		slog.Any("capability_ids", ids), slog.String("decision", decision))
}

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

func (f *Front) auditAttenuate(ctx context.Context, c *call, parent, child *captoken.Claims, decision string) {
	attrs := []slog.Attr{slog.String("caller", c.principal.ID), slog.String("agent", c.agent.cfg.Name), slog.String("decision", decision)}
	if parent != nil {
		attrs = append(attrs, slog.String("parent_capability_id", parent.CapabilityID))
	}
	attrs = append(attrs, claimAttrs(child)...)
	f.audit(ctx, EventAttenuate, attrs...)
}

func (f *Front) auditRevoke(ctx context.Context, c *call, claims *captoken.Claims, decision string) {
	attrs := append([]slog.Attr{
		slog.String("caller", c.principal.ID), slog.String("agent", c.agent.cfg.Name), slog.String("decision", decision),
	}, claimAttrs(claims)...)
	f.audit(ctx, EventRevoke, attrs...)
}
