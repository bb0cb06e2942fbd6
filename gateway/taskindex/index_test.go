package taskindex_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/revocation/redistest"
)

// suite checks the behaviour every Index shares.
func suite(t *testing.T, newIndex func(t *testing.T) taskindex.Index) {
	tests := []struct {
		name  string
		steps func(t *testing.T, ix taskindex.Index)
	}{
		{"first claim binds", func(t *testing.T, ix taskindex.Index) {
			claim(t, ix, "echo", "user:alice", []string{"t1", "t2"}, []string{"user:alice", "user:alice"})
			owners(t, ix, "echo", []string{"t1", "t2", "t3"}, []string{"user:alice", "user:alice", ""})
		}},
		{"a later claim does not rebind", func(t *testing.T, ix taskindex.Index) {
			claim(t, ix, "echo", "user:alice", []string{"t1"}, []string{"user:alice"})
			claim(t, ix, "echo", "user:bob", []string{"t1", "t9"}, []string{"user:alice", "user:bob"})
			owners(t, ix, "echo", []string{"t1", "t9"}, []string{"user:alice", "user:bob"})
		}},
		{"agents are apart", func(t *testing.T, ix taskindex.Index) {
			claim(t, ix, "echo", "user:alice", []string{"t1"}, []string{"user:alice"})
			claim(t, ix, "other", "user:bob", []string{"t1"}, []string{"user:bob"})
			owners(t, ix, "echo", []string{"t1"}, []string{"user:alice"})
		}},
		{"empty asks", func(t *testing.T, ix taskindex.Index) {
			claim(t, ix, "echo", "user:alice", nil, []string{})
			owners(t, ix, "echo", nil, []string{})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.steps(t, newIndex(t)) })
	}
}

func claim(t *testing.T, ix taskindex.Index, agent, owner string, tasks, want []string) {
	t.Helper()
	got, err := ix.Claim(context.Background(), agent, owner, tasks)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Claim(%s, %s, %v) = %q, %v; want %q", agent, owner, tasks, got, err, want)
	}
}

func owners(t *testing.T, ix taskindex.Index, agent string, tasks, want []string) {
	t.Helper()
	got, err := ix.Owners(context.Background(), agent, tasks)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Owners(%s, %v) = %q, %v; want %q", agent, tasks, got, err, want)
	}
}

func TestMemory(t *testing.T) {
	suite(t, func(*testing.T) taskindex.Index { return taskindex.NewMemory(100, time.Hour, time.Now) })
}

// TestMemoryBound checks that the index never holds more than its bound,
// forgetting the least recently used task first.
func TestMemoryBound(t *testing.T) {
	ix := taskindex.NewMemory(3, time.Hour, time.Now)
	for i := range 10 {
		claim(t, ix, "echo", "user:alice", []string{fmt.Sprint("t", i)}, []string{"user:alice"})
		if ix.Len() > 3 {
			t.Fatalf("after %d claims the index holds %d tasks, bound 3", i+1, ix.Len())
		}
	}
	owners(t, ix, "echo", []string{"t6"}, []string{""})
	owners(t, ix, "echo", []string{"t7"}, []string{"user:alice"}) // t7 is now the most recent
	claim(t, ix, "echo", "user:alice", []string{"t10"}, []string{"user:alice"})
	owners(t, ix, "echo", []string{"t7", "t8", "t9", "t10"}, []string{"user:alice", "", "user:alice", "user:alice"})
}

// TestMemoryTTL checks that a binding expires ttl after its owner last
// claimed it, and that another principal's claim does not extend it.
func TestMemoryTTL(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	ix := taskindex.NewMemory(10, time.Minute, func() time.Time { return now })
	claim(t, ix, "echo", "user:alice", []string{"t1"}, []string{"user:alice"})
	now = now.Add(50 * time.Second)
	claim(t, ix, "echo", "user:alice", []string{"t1"}, []string{"user:alice"})
	now = now.Add(50 * time.Second)
	claim(t, ix, "echo", "user:bob", []string{"t1"}, []string{"user:alice"})
	now = now.Add(11 * time.Second)
	owners(t, ix, "echo", []string{"t1"}, []string{""})
}

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	suite(t, func(*testing.T) taskindex.Index {
		n++
		return taskindex.NewRedis(srv.Client, fmt.Sprintf("t%d:", n), time.Hour, time.Second)
	})
}

// TestRedisTTL checks that every binding carries a TTL no longer than the
// configured one, under the configured prefix.
func TestRedisTTL(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	ix := taskindex.NewRedis(srv.Client, "p:", time.Minute, time.Second)
	claim(t, ix, "echo", "user:alice", []string{"t1"}, []string{"user:alice"})
	ttl, err := srv.Client.PTTL(ctx, "p:task:echo:t1").Result()
	if err != nil || ttl <= 0 || ttl > time.Minute {
		t.Fatalf("PTTL = %v, %v; want in (0, 1m]", ttl, err)
	}
}

// TestRedisFailsClosed checks that an unreachable index is an error, never
// "unknown" or a claim.
func TestRedisFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	ix := taskindex.NewRedis(srv.Client, "f:", time.Minute, 200*time.Millisecond)
	srv.Kill()
	ctx := context.Background()
	if _, err := ix.Owners(ctx, "echo", []string{"t1"}); !errors.Is(err, taskindex.ErrUnavailable) {
		t.Fatalf("Owners on a dead Redis: %v, want ErrUnavailable", err)
	}
	if _, err := ix.Claim(ctx, "echo", "user:alice", []string{"t1"}); !errors.Is(err, taskindex.ErrUnavailable) {
		t.Fatalf("Claim on a dead Redis: %v, want ErrUnavailable", err)
	}
}
