package a2efront

import (
	"context"
	"log/slog"
	"slices"

	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/policy"
)

// shadow decides a handshake under the shadow policy, when one is
// configured, and records a disagreement with enforced (an audit event in
// the shape of an issuance disagreement, and Disagreed). Nothing it
// decides is enforced.
func (f *Front) shadow(ctx context.Context, in policy.A2EInput, enforced policy.A2EDecision) {
	if f.deps.Shadow == nil || f.deps.Shadow.Current() == nil {
		return
	}
	cand := f.deps.Shadow.Current().DecideA2E(ctx, in)
	side := func(d policy.A2EDecision) issue.Shadowed {
		allowed := slices.Clone(d.Allowed)
		slices.Sort(allowed)
		return issue.Shadowed{Revision: d.Revision, Allow: len(allowed) > 0, Rules: issue.RuleIDs(d.Matched), Outcome: allowed}
	}
	audit := func(ctx context.Context, event string, attrs ...slog.Attr) {
		f.deps.Audit.LogAttrs(ctx, slog.LevelInfo, event, attrs...)
	}
	if issue.Disagreement(ctx, audit, "a2e", in.Principal.ID, in.Host, in.Capabilities, side(enforced), side(cand)) && f.deps.Disagreed != nil {
		f.deps.Disagreed()
	}
}
