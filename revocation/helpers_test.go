package revocation

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testPrefixes gives every store in this test binary its own key prefix.
var testPrefixes atomic.Int64

func freshPrefix() string { return fmt.Sprintf("capgate-it:%d:", testPrefixes.Add(1)) }

// startRedis returns a Redis store on client, closed by t.Cleanup.
func startRedis(t testing.TB, client redis.UniversalClient, opts RedisOptions) *Redis {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = freshPrefix()
	}
	if opts.InitGrace == 0 {
		opts.InitGrace = time.Millisecond // every prefix is fresh: nobody to wait for
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := NewRedis(ctx, client, opts)
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// startSynced returns a Synced store on r, closed by t.Cleanup.
func startSynced(t testing.TB, r *Redis, opts SyncedOptions) *Synced {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := NewSynced(ctx, r, opts)
	if err != nil {
		t.Fatalf("NewSynced: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// eventually polls cond every few milliseconds until it holds, failing
// after a generous deadline. It asserts an outcome, never a duration.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// q is a query on a chain of ids.
func q(ids ...string) Query { return Query{IDs: ids} }

// bg is the context of calls made by background test
// goroutines.
func bg() context.Context { return context.Background() }
