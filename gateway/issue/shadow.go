package issue

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/capgate/capgate/policy"
)

// EventShadowDisagreement is the audit event of a capability request the
// shadow policy decided otherwise than the enforced one.
const EventShadowDisagreement = "policy.shadow_disagreement"

// shadow decides in under the shadow policy, when one is configured, and
// records a disagreement with enforced: an audit event naming both
// outcomes and a metric. Nothing it decides is enforced.
func (is *Issuer) shadow(ctx context.Context, a asked, in policy.Input, enforced policy.Decision) {
	if is.deps.Shadow == nil {
		return
	}
	cand := is.deps.Shadow.Current()
	if cand == nil {
		return
	}
	sd := cand.Decide(ctx, in)
	was, would := outcomeOf(enforced), outcomeOf(sd)
	if slices.Equal(was, would) {
		return
	}
	if is.deps.Disagreed != nil {
		is.deps.Disagreed()
	}
	is.deps.Audit(ctx, EventShadowDisagreement,
		slog.String("principal", a.caller.ID), slog.String("agent", a.target.Name()),
		slog.Any("grants", in.Grants), slog.String("purpose", in.Purpose),
		slog.Any("enforced", shadowSide(enforced, was)), slog.Any("candidate", shadowSide(sd, would)))
}

// outcomeOf is what a decision issues, one line per grant: the grant, its
// operations, depth, expiry and whether it waits for approval; "denied"
// when nothing is.
func outcomeOf(d policy.Decision) []string {
	if !d.Allow {
		return []string{"denied"}
	}
	out := make([]string, 0, len(d.Grants))
	for _, g := range d.Grants {
		ops := slices.Clone(g.Operations)
		slices.Sort(ops)
		out = append(out, fmt.Sprintf("%s ops=%s depth=%d expires=%s approval=%t resources=%v",
			g.Grant, strings.Join(ops, ","), g.MaxDepth, g.Expires.UTC().Format("2006-01-02T15:04:05Z"), d.NeedsApproval(), g.Resource))
	}
	return out
}

// shadowSide is one side of a disagreement as the audit event shows it.
func shadowSide(d policy.Decision, outcome []string) map[string]any {
	rules := make([]string, 0, len(d.Matched))
	for _, m := range d.Matched {
		rules = append(rules, m.ID)
	}
	return map[string]any{"revision": d.Revision, "allow": d.Allow, "rules": rules, "outcome": outcome}
}

// Shadowed is one side of a disagreement on a decision other than
// issuance (an ambient call, an A2E handshake): the revision that decided,
// whether it allowed, the rules that took effect and what it allowed.
type Shadowed struct {
	Revision string
	Allow    bool
	Rules    []string
	Outcome  []string
}

// Disagreement records a decision the shadow policy made otherwise than
// the enforced one, outside issuance: kind names the decision ("ambient",
// "a2e"), target the agent or host (under the key agent, as every
// issuance event), asked what was asked (skills or A2E capabilities).
// It returns whether the two disagree; nothing is recorded when they do
// not. The event has the issuance disagreement's shape, so the console
// and the trail read both alike.
func Disagreement(ctx context.Context, audit func(context.Context, string, ...slog.Attr), kind, principal, target string, asked []string, enforced, candidate Shadowed) bool {
	if enforced.Allow == candidate.Allow && slices.Equal(enforced.Outcome, candidate.Outcome) {
		return false
	}
	side := func(s Shadowed) map[string]any {
		return map[string]any{"revision": s.Revision, "allow": s.Allow, "rules": nonNil(s.Rules), "outcome": nonNil(s.Outcome)}
	}
	audit(ctx, EventShadowDisagreement, slog.String("kind", kind),
		slog.String("principal", principal), slog.String("agent", target), slog.Any("grants", nonNil(asked)),
		slog.Any("enforced", side(enforced)), slog.Any("candidate", side(candidate)))
	return true
}

// RuleIDs are the ids of the rules that took effect.
func RuleIDs(refs []policy.RuleRef) []string {
	out := make([]string, 0, len(refs))
	for _, m := range refs {
		out = append(out, m.ID)
	}
	return out
}
