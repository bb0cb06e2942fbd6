package gateway

import (
	"fmt"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/ratelimit"
)

// limiter builds the per-principal limits: on the gateway's Redis when
// it has one, so that every replica draws on one budget, and in memory
// otherwise.
func (b *Built) limiter(cfg *config.Config, opts BuildOptions) (*ratelimit.Limiter, error) {
	deps := ratelimit.Deps{Now: opts.Now, Metrics: b.metrics, Logger: opts.Logger}
	if b.redis != nil && cfg.Redis != nil {
		deps.Redis, deps.Prefix, deps.Timeout = b.redis, cfg.Redis.Prefix, cfg.Redis.Timeout.D()
	}
	l, err := ratelimit.New(cfg.RateLimits, deps)
	if err != nil {
		return nil, fmt.Errorf("gateway: rate limits: %w", err)
	}
	return l, nil
}
