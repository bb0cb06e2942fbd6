package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// redisStore keeps the state every replica shares: GCRA buckets through
// redis_rate (one key each, timed by the Redis server's clock), and a
// sorted set of expiries per principal for the live cap.
type redisStore struct {
	c       redis.UniversalClient
	rates   *redis_rate.Limiter
	prefix  string
	timeout time.Duration
}

func newRedisStore(c redis.UniversalClient, prefix string, timeout time.Duration) *redisStore {
	return &redisStore{c: c, rates: redis_rate.NewLimiter(c), prefix: prefix, timeout: timeout}
}

func (s *redisStore) allow(ctx context.Context, key string, r Rate, n int, _ time.Time) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.rates.AllowN(ctx, s.prefix+key, redis_rate.Limit{Rate: r.Events, Period: r.Period, Burst: r.Burst}, n)
	if err != nil {
		return 0, err
	}
	if res.Allowed < n {
		return max(res.RetryAfter, time.Millisecond), nil
	}
	return 0, nil
}

// admitScript trims the expired members of a live set and answers
// {1, 0} when it has room, else {0, the expiry (ms) of the member whose
// end makes room}.
var admitScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local max = tonumber(ARGV[2])
local n = redis.call('ZCARD', KEYS[1])
if n < max then return {1, 0} end
local m = redis.call('ZRANGE', KEYS[1], n - max, n - max, 'WITHSCORES')
return {0, m[2]}
`)

func (s *redisStore) admitLive(ctx context.Context, key string, maxLive int, now time.Time) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := admitScript.Run(ctx, s.c, []string{s.prefix + key}, now.UnixMilli(), maxLive).Slice()
	if err != nil {
		return 0, err
	}
	if len(v) != 2 {
		return 0, fmt.Errorf("live-capability script answered %v", v)
	}
	if ok, _ := v[0].(int64); ok == 1 {
		return 0, nil
	}
	ms, err := strconv.ParseInt(fmt.Sprint(v[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("live-capability script answered %v: %w", v, err)
	}
	return max(time.UnixMilli(ms).Sub(now), time.Millisecond), nil
}

func (s *redisStore) recordLive(ctx context.Context, key, id string, expires, now time.Time) error {
	ttl := expires.Sub(now)
	if ttl <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	k := s.prefix + key
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, k, redis.Z{Score: float64(expires.UnixMilli()), Member: id})
		p.ExpireGT(ctx, k, ttl)
		p.ExpireNX(ctx, k, ttl)
		return nil
	})
	return err
}
