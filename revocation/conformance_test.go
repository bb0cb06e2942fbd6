package revocation_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/redistest"
	"github.com/capgate/capgate/revocation/revocationtest"
	"github.com/redis/go-redis/v9"
)

func TestMemoryConformance(t *testing.T) {
	revocationtest.Run(t, func(t *testing.T, c *revocationtest.Clock) revocation.Store {
		return revocation.NewMemory(revocation.MemoryOptions{Now: c.Now})
	})
}

func TestRedisConformance(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	revocationtest.Run(t, redisFactory(srv.Client, &n))
}

func TestSyncedConformance(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	revocationtest.Run(t, syncedFactory(srv.Client, &n))
}

func TestClusterConformance(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	var n atomic.Int64
	t.Run("Redis", func(t *testing.T) { revocationtest.Run(t, redisFactory(cluster.Client, &n)) })
	t.Run("Synced", func(t *testing.T) { revocationtest.Run(t, syncedFactory(cluster.Client, &n)) })
}

// redisFactory makes Redis stores on client, each under a fresh prefix.
func redisFactory(client redis.UniversalClient, n *atomic.Int64) revocationtest.Factory {
	return func(t *testing.T, c *revocationtest.Clock) revocation.Store {
		return newRedis(t, client, revocation.RedisOptions{
			Prefix: fmt.Sprintf("capgate-test:%d:", n.Add(1)),
			Now:    c.Now,
		})
	}
}

// syncedFactory makes Synced stores on client, each under a fresh prefix.
func syncedFactory(client redis.UniversalClient, n *atomic.Int64) revocationtest.Factory {
	return func(t *testing.T, c *revocationtest.Clock) revocation.Store {
		r := newRedis(t, client, revocation.RedisOptions{
			Prefix: fmt.Sprintf("capgate-test:%d:", n.Add(1)),
			Now:    c.Now,
		})
		return newSynced(t, r, revocation.SyncedOptions{Now: c.Now})
	}
}

func newRedis(t testing.TB, client redis.UniversalClient, opts revocation.RedisOptions) *revocation.Redis {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if opts.InitGrace == 0 {
		opts.InitGrace = time.Millisecond // every prefix is fresh: nobody to wait for
	}
	if opts.Timeout == 0 {
		// The cases test behaviour, not speed: a test machine busy with
		// other packages must not turn a slow answer into a refusal.
		opts.Timeout = 2 * time.Second
	}
	r, err := revocation.NewRedis(ctx, client, opts)
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func newSynced(t testing.TB, r *revocation.Redis, opts revocation.SyncedOptions) *revocation.Synced {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := revocation.NewSynced(ctx, r, opts)
	if err != nil {
		t.Fatalf("NewSynced: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
