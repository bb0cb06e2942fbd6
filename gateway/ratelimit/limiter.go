package ratelimit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
)

// Limit names one limit: what is refused, and what the metrics count.
type Limit string

// The limits.
const (
	Issue     Limit = "issue"
	Attenuate Limit = "attenuate"
	Invoke    Limit = "invoke"
	// Live is the cap on live capabilities.
	Live Limit = "live_capabilities"
)

var (
	// ErrLimited is matched by a *Refusal: the principal is over a limit.
	ErrLimited = errors.New("ratelimit: limit reached")
	// ErrUnavailable: the limiter's store could not answer; the call must
	// be refused (fail closed).
	ErrUnavailable = errors.New("ratelimit: limiter state unavailable")
)

// Refusal says which limit refused a call and when to try again.
type Refusal struct {
	Limit      Limit
	RetryAfter time.Duration
}

// Error says which limit refused and when to try again.
func (r *Refusal) Error() string {
	return fmt.Sprintf("%s: %s, retry after %s", ErrLimited, r.Limit, r.RetryAfter)
}

// Is matches ErrLimited.
func (r *Refusal) Is(target error) bool { return target == ErrLimited }

// store keeps the buckets and the live sets.
type store interface {
	allow(ctx context.Context, key string, r Rate, n int, now time.Time) (time.Duration, error)
	admitLive(ctx context.Context, key string, max int, now time.Time) (time.Duration, error)
	recordLive(ctx context.Context, key, id string, expires, now time.Time) error
}

// Limiter applies a Config. A nil *Limiter allows everything.
type Limiter struct {
	cfg   Config
	store store
	rt    platform.Runtime
}

// New validates cfg (after defaults) and returns its limiter, on the
// runtime's Redis when it has one (keys under its prefix and
// "ratelimit:", each call bounded by its timeout, 0 meaning 250ms) and in
// memory otherwise. The runtime's metrics count every check by limit and
// result, and its logger receives store failures. A disabled config
// returns nil, which allows everything.
func New(cfg Config, rt platform.Runtime) (*Limiter, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Disabled {
		return nil, nil
	}
	rt = rt.WithDefaults()
	l := &Limiter{cfg: cfg, rt: rt}
	if rt.Redis != nil {
		l.store = newRedisStore(rt.Redis.Client, rt.Redis.Prefix+"ratelimit:", cmp.Or(rt.Redis.Timeout, 250*time.Millisecond))
	} else {
		l.store = newMemoryStore(cfg.MaxKeys)
	}
	return l, nil
}

// Allow spends n events of limit (Issue, Attenuate or Invoke) from the
// budget of principal (on agent, when the config is per agent). It
// returns nil, a *Refusal, or an error matching ErrUnavailable.
func (l *Limiter) Allow(ctx context.Context, limit Limit, principal, agent string, n int) error {
	if l == nil {
		return nil
	}
	r := l.rate(limit)
	if r.Events == 0 {
		return nil
	}
	if n > r.Burst {
		return l.result(ctx, limit, &Refusal{Limit: limit, RetryAfter: r.Period})
	}
	wait, err := l.store.allow(ctx, l.key(limit, principal, agent), r, n, l.rt.Now())
	return l.result(ctx, limit, l.outcome(limit, wait, err))
}

// AdmitLive checks that principal holds fewer live capabilities than the
// cap. Record each capability minted after it.
func (l *Limiter) AdmitLive(ctx context.Context, principal, agent string) error {
	if l == nil || l.cfg.MaxLiveCapabilities < 0 {
		return nil
	}
	wait, err := l.store.admitLive(ctx, l.key(Live, principal, agent), l.cfg.MaxLiveCapabilities, l.rt.Now())
	return l.result(ctx, Live, l.outcome(Live, wait, err))
}

// RecordLive counts capability id, minted at principal's request, until
// it expires. A failure is logged and counted, and returned.
func (l *Limiter) RecordLive(ctx context.Context, principal, agent, id string, expires time.Time) error {
	if l == nil || l.cfg.MaxLiveCapabilities < 0 {
		return nil
	}
	err := l.store.recordLive(ctx, l.key(Live, principal, agent), id, expires, l.rt.Now())
	if err != nil {
		l.rt.Metrics.RedisError("ratelimit")
		l.rt.Logger.WarnContext(ctx, "live capability not counted", "error", err)
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

func (l *Limiter) rate(limit Limit) Rate {
	switch limit {
	case Issue:
		return l.cfg.Issue
	case Attenuate:
		return l.cfg.Attenuate
	case Invoke:
		return l.cfg.Invoke
	}
	return Rate{}
}

// key is where a budget is kept: the limit and a hash of the principal
// (and agent), so that any principal id makes a short, safe key.
func (l *Limiter) key(limit Limit, principal, agent string) string {
	who := principal
	if l.cfg.PerAgent {
		who += "\x00" + agent
	}
	sum := sha256.Sum256([]byte(who))
	return string(limit) + ":" + base64.RawURLEncoding.EncodeToString(sum[:18])
}

func (l *Limiter) outcome(limit Limit, wait time.Duration, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case wait > 0:
		return &Refusal{Limit: limit, RetryAfter: wait}
	}
	return nil
}

// result counts and logs one check's result.
func (l *Limiter) result(ctx context.Context, limit Limit, err error) error {
	res := metrics.RateLimitAllowed
	switch {
	case errors.Is(err, ErrLimited):
		res = metrics.RateLimitLimited
	case err != nil:
		res = metrics.RateLimitUnavailable
		l.rt.Metrics.RedisError("ratelimit")
		l.rt.Logger.WarnContext(ctx, "rate limiter unavailable; refusing", "limit", limit, "error", err)
	}
	l.rt.Metrics.ObserveRateLimit(string(limit), res)
	return err
}
