package a2afront

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/capgate/capgate/gateway/enforce"
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

// limitError renders a limiter's answer: rate_limited with the limit and
// retryAfter (whole seconds, at least 1) for a refusal; the store-loss
// code for a limiter that cannot answer, because the gateway fails
// closed.
func limitError(err error) *jsonrpc.Error {
	if err == nil {
		return nil // before r, which errors.As moves to the heap
	}
	var r *ratelimit.Refusal
	switch {
	case errors.As(err, &r):
		secs := max(1, int(math.Ceil(r.RetryAfter.Seconds())))
		return capErr(jsonrpc.CodeRateLimited, "rate limited: "+string(r.Limit)+"; retry after the given seconds",
			map[string]any{"limit": string(r.Limit), "retryAfter": secs})
	}
	return storeDown(enforce.RateLimitStore, "")
}
