package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/revocation/redistest"
)

// tight is a config small enough to reach in a test.
func tight() ratelimit.Config {
	r := ratelimit.Rate{Events: 3, Period: time.Minute, Burst: 3}
	return ratelimit.Config{Issue: r, Attenuate: r, Invoke: r, MaxLiveCapabilities: 2}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newLimiter(t *testing.T, cfg ratelimit.Config, rt platform.Runtime) *ratelimit.Limiter {
	t.Helper()
	l, err := ratelimit.New(cfg, rt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// spend allows limit for p until it is refused, and returns how many
// were allowed and the refusal.
func spend(t *testing.T, l *ratelimit.Limiter, limit ratelimit.Limit, p string) (int, error) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if err := l.Allow(context.Background(), limit, p, "documents", 1); err != nil {
			return i, err
		}
	}
	return 100, nil
}

func wantRefusal(t *testing.T, err error, limit ratelimit.Limit) {
	t.Helper()
	var r *ratelimit.Refusal
	if !errors.Is(err, ratelimit.ErrLimited) || !errors.As(err, &r) || r.Limit != limit || r.RetryAfter <= 0 {
		t.Fatalf("got %v, want a %s refusal with a retry-after", err, limit)
	}
}

// TestBudgetIsPerPrincipal checks the in-memory store: the burst is allowed, the next
// is refused with a retry-after, another principal is unaffected, and
// the budget comes back with time.
func TestBudgetIsPerPrincipal(t *testing.T) {
	for _, limit := range []ratelimit.Limit{ratelimit.Issue, ratelimit.Attenuate, ratelimit.Invoke} {
		t.Run(string(limit), func(t *testing.T) {
			c := &clock{t: time.Unix(1_800_000_000, 0)}
			l := newLimiter(t, tight(), platform.Runtime{Now: c.now})
			n, err := spend(t, l, limit, "user:alice")
			if n != 3 {
				t.Fatalf("allowed %d, want the burst of 3", n)
			}
			wantRefusal(t, err, limit)
			if err := l.Allow(context.Background(), limit, "user:bob", "documents", 1); err != nil {
				t.Fatalf("bob refused: %v", err)
			}
			c.t = c.t.Add(20 * time.Second)
			if err := l.Allow(context.Background(), limit, "user:alice", "documents", 1); err != nil {
				t.Fatalf("alice refused after one event's worth of time: %v", err)
			}
		})
	}
}

func TestMoreThanTheBurstAtOnceIsRefused(t *testing.T) {
	l := newLimiter(t, tight(), platform.Runtime{})
	wantRefusal(t, l.Allow(context.Background(), ratelimit.Attenuate, "user:alice", "", 4), ratelimit.Attenuate)
}

func TestPerAgentBudgets(t *testing.T) {
	cfg := tight()
	cfg.PerAgent = true
	l := newLimiter(t, cfg, platform.Runtime{})
	if n, _ := spend(t, l, ratelimit.Invoke, "user:alice"); n != 3 {
		t.Fatalf("allowed %d, want 3", n)
	}
	if err := l.Allow(context.Background(), ratelimit.Invoke, "user:alice", "summarizer", 1); err != nil {
		t.Fatalf("another agent's budget was spent: %v", err)
	}
}

func TestLiveCapabilityCap(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	testLiveCap(t, newLimiter(t, tight(), platform.Runtime{Now: c.now}), c)
}

// testLiveCap holds two live capabilities, is refused a third until the
// first expires, and leaves another principal unaffected.
func testLiveCap(t *testing.T, l *ratelimit.Limiter, c *clock) {
	ctx := context.Background()
	for i, ttl := range []time.Duration{time.Minute, time.Hour} {
		if err := l.AdmitLive(ctx, "user:alice", ""); err != nil {
			t.Fatalf("capability %d refused: %v", i, err)
		}
		if err := l.RecordLive(ctx, "user:alice", "", "cap_"+string(rune('a'+i)), c.t.Add(ttl)); err != nil {
			t.Fatal(err)
		}
	}
	err := l.AdmitLive(ctx, "user:alice", "")
	wantRefusal(t, err, ratelimit.Live)
	var r *ratelimit.Refusal
	if errors.As(err, &r); r.RetryAfter > time.Minute {
		t.Errorf("retry after %s, want at most the first expiry (1m)", r.RetryAfter)
	}
	if err := l.AdmitLive(ctx, "user:bob", ""); err != nil {
		t.Fatalf("bob refused: %v", err)
	}
	c.t = c.t.Add(time.Minute + time.Second)
	if err := l.AdmitLive(ctx, "user:alice", ""); err != nil {
		t.Fatalf("refused after the first expired: %v", err)
	}
}

func TestDisabledAndUnlimited(t *testing.T) {
	cfg := tight()
	cfg.Disabled = true
	var l *ratelimit.Limiter = newLimiter(t, cfg, platform.Runtime{})
	if l != nil || l.Allow(context.Background(), ratelimit.Issue, "p", "", 1000) != nil || l.AdmitLive(context.Background(), "p", "") != nil {
		t.Fatal("a disabled limiter limits")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*ratelimit.Config)
		wantErr error
	}{
		{"defaults", func(*ratelimit.Config) {}, nil},
		{"negative events", func(c *ratelimit.Config) { c.Issue.Events = -1 }, ratelimit.ErrInvalidConfig},
		{"sub-second period", func(c *ratelimit.Config) { c.Invoke = ratelimit.Rate{Events: 5, Period: time.Millisecond, Burst: 1} }, ratelimit.ErrInvalidConfig},
		{"no keys", func(c *ratelimit.Config) { c.MaxKeys = -1 }, ratelimit.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ratelimit.Config{}
			tt.edit(&c)
			if _, err := ratelimit.New(c, platform.Runtime{}); !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestMemoryIsBounded: the in-memory state holds at most MaxKeys keys. A
// new key is refused while every key is busy (fail closed), and admitted
// once an idle key (a full bucket, the same as no state) can be dropped.
func TestMemoryIsBounded(t *testing.T) {
	cfg := tight()
	cfg.MaxKeys = 2
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := newLimiter(t, cfg, platform.Runtime{Now: c.now})
	ctx := context.Background()
	_ = l.Allow(ctx, ratelimit.Invoke, "a", "", 1)
	_ = l.Allow(ctx, ratelimit.Invoke, "b", "", 1)
	if err := l.Allow(ctx, ratelimit.Invoke, "c", "", 1); !errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("a third busy key: %v, want ErrUnavailable (fail closed)", err)
	}
	c.t = c.t.Add(time.Minute)
	if err := l.Allow(ctx, ratelimit.Invoke, "c", "", 1); err != nil {
		t.Fatalf("a third key once the others are idle: %v", err)
	}
	if n, _ := spend(t, l, ratelimit.Invoke, "a"); n != 3 {
		t.Fatalf("a dropped idle key came back with %d events, want its full burst of 3", n)
	}
}

// TestReplicasShareTheBudget runs two limiters, as two replicas, on one
// throwaway redis-server: what one spends the other cannot.
func TestReplicasShareTheBudget(t *testing.T) {
	srv := redistest.Start(t)
	a := newLimiter(t, tight(), platform.Runtime{Redis: &platform.Redis{Client: redisClient(t, srv.Addr), Prefix: "t:"}})
	b := newLimiter(t, tight(), platform.Runtime{Redis: &platform.Redis{Client: redisClient(t, srv.Addr), Prefix: "t:"}})
	ctx := context.Background()
	for i, l := range []*ratelimit.Limiter{a, b, a} {
		if err := l.Allow(ctx, ratelimit.Issue, "user:alice", "", 1); err != nil {
			t.Fatalf("event %d refused: %v", i, err)
		}
	}
	wantRefusal(t, b.Allow(ctx, ratelimit.Issue, "user:alice", "", 1), ratelimit.Issue)
	wantRefusal(t, a.Allow(ctx, ratelimit.Issue, "user:alice", "", 1), ratelimit.Issue)
	if err := b.Allow(ctx, ratelimit.Issue, "user:bob", "", 1); err != nil {
		t.Fatalf("bob refused: %v", err)
	}
	c := &clock{t: time.Now()}
	shared := newLimiter(t, tight(), platform.Runtime{Redis: &platform.Redis{Client: redisClient(t, srv.Addr), Prefix: "t:"}, Now: c.now})
	testLiveCap(t, shared, c)
}

// TestRedisDownFailsClosed: with its store gone, the limiter refuses
// (ErrUnavailable) rather than allow without counting.
func TestRedisDownFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	l := newLimiter(t, tight(), platform.Runtime{Redis: &platform.Redis{Client: redisClient(t, srv.Addr), Timeout: 200 * time.Millisecond}})
	ctx := context.Background()
	if err := l.Allow(ctx, ratelimit.Invoke, "user:alice", "", 1); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	for _, err := range []error{
		l.Allow(ctx, ratelimit.Invoke, "user:alice", "", 1),
		l.AdmitLive(ctx, "user:alice", ""),
		l.RecordLive(ctx, "user:alice", "", "cap_x", time.Now().Add(time.Hour)),
	} {
		if !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	}
}

func redisClient(t *testing.T, addr string) redis.UniversalClient {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
