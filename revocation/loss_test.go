package revocation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// losses are the ways Redis comes back without the revocation set.
var losses = []struct {
	name string
	lose func(t *testing.T, srv *redistest.Server)
}{
	{"restarted empty", func(t *testing.T, srv *redistest.Server) { srv.Restart() }},
	{"FLUSHALL", func(t *testing.T, srv *redistest.Server) {
		if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
	}},
}

// TestLossFailsClosed: two replicas with a local set (Redis + Synced each)
// and a replica with the Redis store alone are checked continuously while
// Redis loses everything. No store may ever answer "not revoked" for the
// revoked capability, and every store answers again without a restart.
func TestLossFailsClosed(t *testing.T) {
	for _, loss := range losses {
		t.Run(loss.name, func(t *testing.T) {
			const timeout = 250 * time.Millisecond
			srv := redistest.Start(t)
			opts := RedisOptions{Prefix: freshPrefix(), Timeout: timeout, Breaker: BreakerOptions{FailureThreshold: 3, CoolDown: 100 * time.Millisecond}}
			rA := startRedis(t, srv.NewClient(nil), opts)
			sA := startSynced(t, rA, SyncedOptions{MaxStaleness: 400 * time.Millisecond})
			rC := startRedis(t, srv.NewClient(nil), opts)
			sC := startSynced(t, rC, SyncedOptions{MaxStaleness: 400 * time.Millisecond})
			rB := startRedis(t, srv.NewClient(nil), opts)
			revoked, unknown := q("rv_root", "rv_revoked"), q("rv_root", "rv_unknown")
			if err := sA.Revoke(t.Context(), "rv_revoked", time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			eventually(t, "replica C holds the revocation", func() bool { return localHas(sC, "rv_revoked") })
			stores := map[string]Store{"redis A": rA, "redis B alone": rB, "redis C": rC, "synced A": sA, "synced C": sC}
			tr := startTraffic(stores, revoked, unknown, func(string) bool { return false })
			time.Sleep(100 * time.Millisecond)

			loss.lose(t, srv)
			for name, s := range stores {
				eventually(t, name+" answers again", func() bool {
					return answers(s, unknown, false) && answers(s, revoked, true)
				})
			}
			for _, s := range []*Synced{sA, sC} {
				eventually(t, "synced replicas ready", func() bool { return s.Ready(t.Context()) == nil && !s.Stats().Lost })
			}
			tr.finish(t, timeout)
			if sA.Stats().Restored+sC.Stats().Restored == 0 {
				t.Error("no replica wrote the lost revocation back")
			}
		})
	}
}

// TestLossWithoutSurvivorStaysClosed: a store that saw the loss and holds
// nothing keeps failing closed, and is not ready, until another replica
// re-establishes the set; here a replica started afterwards initialises
// it, the case no running replica survived.
func TestLossWithoutSurvivorStaysClosed(t *testing.T) {
	srv := redistest.Start(t)
	prefix := freshPrefix()
	r := startRedis(t, srv.Client, RedisOptions{Prefix: prefix})
	if err := r.Revoke(t.Context(), "rv_gone", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := r.Check(t.Context(), q("rv_gone")); !errors.Is(err, ErrStoreLost) || !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Check after the loss = %v, want ErrStoreLost and ErrUnavailable", err)
		}
	}
	if err := r.Ping(t.Context()); !errors.Is(err, ErrStoreLost) {
		t.Fatalf("Ping after the loss = %v, want ErrStoreLost", err)
	}
	if st := r.Stats(); !st.Lost || st.Breaker != BreakerClosed {
		t.Fatalf("stats %+v, want lost with the breaker closed", st)
	}
	startRedis(t, srv.NewClient(nil), RedisOptions{Prefix: prefix})
	if !answers(r, q("rv_gone"), false) || r.Ping(t.Context()) != nil {
		t.Fatal("the store did not recover once a new replica initialised the set")
	}
}

// TestNewReplicaWaitsForSurvivor: a replica started right after the loss,
// holding nothing, does not initialise the set while a survivor can write
// back: it adopts the survivor's epoch, and sees the revocation.
func TestNewReplicaWaitsForSurvivor(t *testing.T) {
	srv := redistest.Start(t)
	prefix := freshPrefix()
	s := startSynced(t, startRedis(t, srv.Client, RedisOptions{Prefix: prefix}), SyncedOptions{MaxStaleness: 400 * time.Millisecond})
	if err := s.Revoke(t.Context(), "rv_survives", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	late, err := NewRedis(ctx, srv.NewClient(nil), RedisOptions{Prefix: prefix, InitGrace: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = late.Close() }()
	if !answers(late, q("rv_survives"), true) {
		t.Fatal("a replica started after the loss trusted a set the survivor had not written back")
	}
}

// TestSyncedNotReadyUntilWrittenBack: while the write-back cannot happen
// (Redis refuses writes), the synced store is not ready and fails closed
// on what it does not hold; once writes are accepted it recovers alone.
func TestSyncedNotReadyUntilWrittenBack(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{MaxStaleness: 400 * time.Millisecond})
	if err := s.Revoke(t.Context(), "rv_held", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.ConfigSet(t.Context(), "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica sees the loss", func() bool { return s.Stats().Lost })
	if err := s.Ready(t.Context()); !errors.Is(err, ErrStoreLost) {
		t.Fatalf("Ready while lost = %v, want ErrStoreLost", err)
	}
	if !failsClosed(s, q("rv_other")) || !answers(s, q("rv_held"), true) {
		t.Fatal("a lost replica did not fail closed (unknown) and deny (held)")
	}
	if err := srv.Client.ConfigSet(t.Context(), "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "written back and ready", func() bool {
		return s.Ready(t.Context()) == nil && answers(r, q("rv_held"), true) && answers(s, q("rv_other"), false)
	})
}
