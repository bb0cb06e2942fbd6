package freeze_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// staleness is the replicas' MaxStaleness in these tests: short, so that
// Freeze's wait and the merges are quick.
const staleness = 200 * time.Millisecond

// replica starts one replica of the set on the server's Redis.
func replica(t *testing.T, srv *redistest.Server) *freeze.Set {
	t.Helper()
	client := srv.NewClient(&redis.Options{MaxRetries: -1})
	s := freeze.New(context.Background(), freeze.Options{
		Runtime:      platform.Runtime{Redis: &platform.Redis{Client: client, Prefix: "t:", Timeout: time.Second}},
		MaxStaleness: staleness,
	})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// eventually polls cond until it holds, failing the test after a generous
// deadline; it asserts an outcome, never how long it took.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// frozen reports whether s answers that agent is frozen.
func frozen(s *freeze.Set, agent string) bool {
	e, err := s.Check(context.Background(), agent)
	return err == nil && e != nil
}

// thawed reports whether s answers, trusted, that agent is not frozen.
func thawed(s *freeze.Set, agent string) bool {
	e, err := s.Check(context.Background(), agent)
	return err == nil && e == nil
}

// TestReplicasSurviveRestarts: a freeze made on one replica holds on the
// other as soon as Freeze returns, survives a Redis restart without data
// (the replicas write it back) and a replica restart (the new process
// reads it), and an unfreeze on any replica reaches all of them.
func TestReplicasSurviveRestarts(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a, b := replica(t, srv), replica(t, srv)
	if _, err := a.Freeze(ctx, freeze.Agent, "billing", "alice", "leaking invoices"); err != nil {
		t.Fatal(err)
	}
	// Freeze returned: b must hold it now, with no waiting.
	if !frozen(b, "billing") {
		t.Fatal("replica b does not hold the freeze after Freeze returned")
	}

	srv.Restart() // empty: no persistence
	eventually(t, "the replicas write the freeze back", func() bool {
		n, err := srv.Client.HLen(ctx, "t:frz").Result()
		return err == nil && n == 1
	})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	c := replica(t, srv) // b restarted
	if !frozen(c, "billing") {
		t.Fatal("a restarted replica does not hold the freeze")
	}
	if e, _ := c.Check(ctx, "billing"); e.By != "alice" || e.Reason != "leaking invoices" {
		t.Fatalf("who and why lost: %+v", e)
	}

	if _, err := c.Unfreeze(ctx, freeze.Agent, "billing", "dave", "fixed"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the unfreeze reaches replica a", func() bool { return thawed(a, "billing") })
	srv.Restart()
	eventually(t, "the unfreeze is written back", func() bool {
		n, err := srv.Client.HLen(ctx, "t:frz").Result()
		return err == nil && n == 1
	})
	if d := replica(t, srv); !thawed(d, "billing") {
		t.Fatal("a new replica sees billing frozen after the unfreeze was written back")
	}
}

// TestFailsClosed: a replica that cannot read the shared set refuses to
// answer once its copy is older than MaxStaleness, and answers again once
// it can; a change made meanwhile is held locally and written back.
func TestFailsClosed(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a := replica(t, srv)
	srv.Kill()
	eventually(t, "the replica stops trusting its copy", func() bool {
		_, err := a.Check(ctx, "billing")
		return errors.Is(err, freeze.ErrUnavailable)
	})
	if err := a.Ready(ctx); !errors.Is(err, freeze.ErrUnavailable) {
		t.Fatalf("Ready = %v, want ErrUnavailable", err)
	}
	if _, err := a.Freeze(ctx, freeze.Principal, "user:bob", "alice", "stolen laptop"); !errors.Is(err, freeze.ErrUnavailable) {
		t.Fatalf("Freeze with Redis down = %v, want ErrUnavailable", err)
	}
	srv.Restart()
	eventually(t, "the replica trusts its copy again", func() bool { return a.Ready(ctx) == nil })
	eventually(t, "the freeze made while Redis was down is written back", func() bool {
		n, err := srv.Client.HLen(ctx, "t:frz").Result()
		return err == nil && n == 1
	})
	if e, err := replica(t, srv).Check(ctx, "", "user:bob"); err != nil || e == nil {
		t.Fatalf("a new replica: %v, %v", e, err)
	}
}

// TestGarbledEntries: entries of the hash that do not read are ignored
// (never a freeze lifted by garbage), and a replica holding the name
// rewrites it.
func TestGarbledEntries(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a := replica(t, srv)
	if _, err := a.Freeze(ctx, freeze.Agent, "billing", "alice", "why"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.HSet(ctx, "t:frz", "agent:billing", "9999999999999999:garbage", "agent:x", "{}").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the garbled entry is rewritten", func() bool {
		v, err := srv.Client.HGet(ctx, "t:frz", "agent:billing").Result()
		return err == nil && v != "9999999999999999:garbage"
	})
	if !frozen(a, "billing") || !thawed(a, "x") {
		t.Fatal("garbage changed the set")
	}
	if !frozen(replica(t, srv), "billing") {
		t.Fatal("a new replica does not hold the freeze")
	}
}
