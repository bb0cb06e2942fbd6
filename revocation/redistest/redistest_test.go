package redistest_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
	"github.com/redis/go-redis/v9"
)

func TestServerLifecycle(t *testing.T) {
	s := redistest.Start(t)
	ctx := context.Background()
	if s.Addr == "127.0.0.1:6379" {
		t.Fatal("harness used the shared Redis port")
	}
	if err := s.Client.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	s.Kill()
	if err := s.Client.Ping(ctx).Err(); err == nil {
		t.Fatal("PING succeeded on a killed server")
	}
	s.Restart()
	if err := s.Client.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after restart: %v", err)
	}
	if err := s.Client.Get(ctx, "k").Err(); err != redis.Nil {
		t.Fatalf("GET after restart = %v, want redis.Nil (no persistence)", err)
	}

	s.Pause()
	short := s.NewClient(&redis.Options{ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
	if err := short.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered by a paused server")
	}
	s.Resume()
	if err := short.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after resume: %v", err)
	}
}

func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if err := c.Client.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	var masters atomic.Int32
	err := c.Client.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		masters.Add(1)
		return n.Ping(ctx).Err()
	})
	if err != nil || masters.Load() != 3 {
		t.Fatalf("ForEachMaster: %d masters, %v; want 3", masters.Load(), err)
	}
}
