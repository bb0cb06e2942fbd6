package revocation

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
	"github.com/redis/go-redis/v9"
)

func TestNewRedisRefuses(t *testing.T) {
	ctx := context.Background()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer func() { _ = ring.Close() }()
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer func() { _ = dead.Close() }()
	live := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer func() { _ = live.Close() }()
	tests := []struct {
		name    string
		client  redis.UniversalClient
		opts    RedisOptions
		wantErr error
	}{
		{"nil client", nil, RedisOptions{}, ErrInvalidOptions},
		{"ring", ring, RedisOptions{}, ErrInvalidOptions},
		{"bad options", live, RedisOptions{Timeout: -1}, ErrInvalidOptions},
		{"unreachable", dead, RedisOptions{Timeout: 100 * time.Millisecond}, ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRedis(ctx, tc.client, tc.opts)
			if !errors.Is(err, tc.wantErr) || r != nil {
				t.Fatalf("NewRedis = %v, %v; want nil, %v", r, err, tc.wantErr)
			}
		})
	}
	// The first ping outlasts the call timeout, so the dial's own error is
	// the cause, not the deadline.
	if _, err := NewRedis(ctx, dead, RedisOptions{Timeout: time.Millisecond}); err == nil ||
		!strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("NewRedis on a closed port = %v, want the address and connection refused", err)
	}
}

// TestRedisLayout pins what the scripts write and publish to the Go-side
// description of the wire format.
func TestRedisLayout(t *testing.T) {
	srv := redistest.Start(t)
	ctx := t.Context()
	r := startRedis(t, srv.Client, RedisOptions{})
	sub := srv.Client.Subscribe(ctx, r.keys.channel())
	defer func() { _ = sub.Close() }()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	until := time.Now().Add(time.Hour)
	before := time.Now().Add(-time.Minute)
	if err := r.Revoke(ctx, "rv_layout", until); err != nil {
		t.Fatal(err)
	}
	if err := r.RevokePrincipal(ctx, "user:alice@example.com", before, until); err != nil {
		t.Fatal(err)
	}
	want := []event{
		{entry: entry{name: "rv_layout", cutoff: cutoff{untilMs: ceilMilli(until)}}},
		{entry: entry{principal: true, name: "user:alice@example.com", cutoff: cutoff{beforeMs: ceilMilli(before), untilMs: ceilMilli(until)}}},
	}
	for _, w := range want {
		msg, err := sub.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Payload != formatEvent(w) {
			t.Errorf("published %q, want %q", msg.Payload, formatEvent(w))
		}
	}
	if v, _ := srv.Client.Get(ctx, r.keys.id("rv_layout")).Result(); v != strconv.FormatInt(ceilMilli(until), 10) {
		t.Errorf("id key holds %q, want the until in ms", v)
	}
	if v, _ := srv.Client.Get(ctx, r.keys.principal("user:alice@example.com")).Result(); v != strconv.FormatInt(ceilMilli(before), 10) {
		t.Errorf("principal key holds %q, want the cutoff in ms", v)
	}
	// until is rounded up to the millisecond, so the TTL may exceed an hour
	// by that much.
	if ttl, _ := srv.Client.PTTL(ctx, r.keys.id("rv_layout")).Result(); ttl <= 59*time.Minute || ttl > time.Hour+time.Millisecond {
		t.Errorf("id key TTL %v, want about an hour", ttl)
	}
}

// TestRedisRefusesWhatItDidNotWrite writes foreign values where the store
// reads, as someone with access to Redis might.
func TestRedisRefusesWhatItDidNotWrite(t *testing.T) {
	srv := redistest.Start(t)
	ctx := t.Context()
	r := startRedis(t, srv.Client, RedisOptions{})
	const p = "user:mallory"
	pq := Query{IDs: []string{"rv_a"}, Principal: p, IssuedAt: time.Now()}
	tests := []struct {
		name    string
		setup   func() error
		q       Query
		want    Result
		wantErr error
	}{
		{"cutoff not a number", func() error { return srv.Client.Set(ctx, r.keys.principal(p), "yesterday", 0).Err() }, pq, Result{}, ErrCorrupt},
		{"cutoff negative", func() error { return srv.Client.Set(ctx, r.keys.principal(p), "-5", 0).Err() }, pq, Result{}, ErrCorrupt},
		{"cutoff wrong type", func() error { return srv.Client.HSet(ctx, r.keys.principal(p), "f", "1").Err() }, pq, Result{}, ErrUnavailable},
		{"id key of another type still means revoked", func() error { return srv.Client.HSet(ctx, r.keys.id("rv_a"), "f", "1").Err() }, q("rv_a"), Result{Revoked: true, By: "rv_a"}, nil},
		{"revoked id is trusted despite a corrupt cutoff", func() error {
			return errors.Join(srv.Client.Set(ctx, r.keys.id("rv_a"), "x", 0).Err(), srv.Client.Set(ctx, r.keys.principal(p), "x", 0).Err())
		}, pq, Result{Revoked: true, By: "rv_a"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := srv.Client.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(); err != nil {
				t.Fatal(err)
			}
			res, err := r.Check(ctx, tc.q)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || res != tc.want {
				t.Fatalf("Check = %+v, %v; want %+v, %v", res, err, tc.want, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUnavailable) {
				t.Fatalf("error %v does not wrap ErrUnavailable", err)
			}
		})
	}
	if st := r.Stats(); st.Breaker != BreakerClosed {
		t.Errorf("corrupt values opened the breaker: %+v", st)
	}
}

func TestRedisRevokeUnderOOM(t *testing.T) {
	srv := redistest.Start(t)
	ctx := t.Context()
	r := startRedis(t, srv.Client, RedisOptions{})
	if err := srv.Client.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	err := r.Revoke(ctx, "rv_oom", time.Now().Add(time.Hour))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Revoke under OOM = %v, want ErrUnavailable", err)
	}
	t.Logf("Revoke under OOM: %v", err)
	if err := srv.Client.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.Revoke(ctx, "rv_oom", time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("Revoke after OOM cleared = %v", err)
	}
}

// TestRedisPersistentKeyIsNeverShortened: a key someone made persistent
// keeps no TTL after a Revoke.
func TestRedisPersistentKeyIsNeverShortened(t *testing.T) {
	srv := redistest.Start(t)
	ctx := t.Context()
	r := startRedis(t, srv.Client, RedisOptions{})
	for _, key := range []string{r.keys.id("rv_p"), r.keys.principal("user:p")} {
		if err := srv.Client.Set(ctx, key, "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Revoke(ctx, "rv_p", time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := r.RevokePrincipal(ctx, "user:p", time.Now(), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{r.keys.id("rv_p"), r.keys.principal("user:p")} {
		if ttl, err := srv.Client.PTTL(ctx, key).Result(); err != nil || ttl != -1 {
			t.Errorf("PTTL %s = %v, %v; want -1 (persistent)", key, ttl, err)
		}
	}
}
