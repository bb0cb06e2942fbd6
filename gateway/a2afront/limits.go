package a2afront

import (
	"context"
	"time"

	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
)

// limit spends n events of limit from the caller's budget and, for the
// limits that mint capabilities, checks the caller's live-capability cap.
// It returns the refusal to answer, or nil. A nil limiter allows all.
func (f *Front) limit(ctx context.Context, c *call, limit ratelimit.Limit, n int) *jsonrpc.Error {
	err := f.deps.Limits.Allow(ctx, limit, c.principal.ID, c.agent.cfg.Name, n)
	if err == nil && limit != ratelimit.Invoke {
		err = f.deps.Limits.AdmitLive(ctx, c.principal.ID, c.agent.cfg.Name)
	}
	return limitError(err)
}

// recordLive counts a capability minted at the caller's request against
// its live cap. Not counting it only loosens the cap, so a failure is
// logged and counted by the limiter and does not undo the issuance.
func (f *Front) recordLive(ctx context.Context, c *call, id string, expires time.Time) {
	_ = f.deps.Limits.RecordLive(ctx, c.principal.ID, c.agent.cfg.Name, id, expires)
}

// limitError renders a limiter's answer (issue.LimitError).
func limitError(err error) *jsonrpc.Error { return issue.LimitError(err) }
