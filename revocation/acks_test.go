package revocation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/revocation/redistest"
)

// twoReplicas starts two Synced replicas under one prefix, each with its
// own Redis store and client from newClient.
func twoReplicas(t *testing.T, newClient func() redis.UniversalClient, opts SyncedOptions) (a, b *Synced) {
	t.Helper()
	prefix := freshPrefix()
	// A generous call timeout: the tests assert what a revoke guarantees,
	// and a busy test machine must not turn a slow answer into a failure.
	ro := RedisOptions{Prefix: prefix, Timeout: 2 * time.Second}
	a = startSynced(t, startRedis(t, newClient(), ro), opts)
	b = startSynced(t, startRedis(t, newClient(), ro), opts)
	return a, b
}

// TestSyncedRevokeReturnsOnlyOnceReplicasHoldIt: when Revoke on one
// replica returns, the other replica's local set already holds the
// revocation, trial after trial, in both directions, for ids and
// principals, on a single node and on Cluster (where PUBLISH counts only
// the subscribers of the node that ran the script).
func TestSyncedRevokeReturnsOnlyOnceReplicasHoldIt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		trials    int
		newClient func(t *testing.T) func() redis.UniversalClient
	}{
		{"single", 300, func(t *testing.T) func() redis.UniversalClient {
			srv := redistest.Start(t)
			return func() redis.UniversalClient { return srv.NewClient(nil) }
		}},
		{"cluster", 60, func(t *testing.T) func() redis.UniversalClient {
			c := redistest.StartCluster(t, 3)
			return func() redis.UniversalClient { return c.NewClient(nil) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := twoReplicas(t, tc.newClient(t), SyncedOptions{})
			for i := range tc.trials {
				from, to := a, b
				if i%2 == 1 {
					from, to = b, a
				}
				revokeAndSee(t, from, to, i)
			}
			for _, s := range []*Synced{a, b} {
				t.Logf("stats %+v", s.Stats())
			}
		})
	}
}

// revokeAndSee revokes on from and asserts that to's local set answers
// revoked as soon as the call returns: an id on even trials, a principal
// cutoff on odd ones.
func revokeAndSee(t *testing.T, from, to *Synced, i int) {
	t.Helper()
	now := time.Now()
	if i%4 < 2 {
		id := fmt.Sprintf("rv_ack_%d", i)
		if err := from.Revoke(t.Context(), id, now.Add(time.Hour)); err != nil {
			t.Fatalf("trial %d: Revoke: %v", i, err)
		}
		if !localHas(to, id) {
			t.Fatalf("trial %d: Revoke returned before the other replica held %s", i, id)
		}
		return
	}
	p := fmt.Sprintf("user:ack-%d", i)
	if err := from.RevokePrincipal(t.Context(), p, now, now.Add(time.Hour)); err != nil {
		t.Fatalf("trial %d: RevokePrincipal: %v", i, err)
	}
	pq := Query{IDs: []string{"rv_other"}, Principal: p, IssuedAt: now.Add(-time.Minute)}
	if !to.set.check(pq, time.Now()).Revoked {
		t.Fatalf("trial %d: RevokePrincipal returned before the other replica held %s", i, p)
	}
}

// TestSyncedRevokeWithoutEveryAckWaitsForTheBound: a subscriber that never
// acknowledges (a raw subscriber PUBLISH counts, or a replica holding a
// lease) makes Revoke wait until MaxStaleness, then return nil, counted
// and logged with the number of acknowledgements missing.
func TestSyncedRevokeWithoutEveryAckWaitsForTheBound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		silent func(t *testing.T, srv *redistest.Server, r *Redis)
	}{
		{"raw subscriber", func(t *testing.T, srv *redistest.Server, r *Redis) {
			sub := srv.NewClient(nil).Subscribe(t.Context(), r.keys.channel())
			t.Cleanup(func() { _ = sub.Close() })
			if _, err := sub.Receive(t.Context()); err != nil {
				t.Fatal(err)
			}
		}},
		{"leased replica that never acks", func(t *testing.T, srv *redistest.Server, r *Redis) {
			if err := r.register(t.Context(), newToken(), time.Hour); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			r := startRedis(t, srv.Client, RedisOptions{})
			logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
			if err != nil {
				t.Fatal(err)
			}
			s := startSynced(t, r, SyncedOptions{MaxStaleness: 100 * time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(logs, nil))})
			tc.silent(t, srv, r)
			if err := s.Revoke(t.Context(), "rv_unacked", time.Now().Add(time.Hour)); err != nil {
				t.Fatalf("Revoke = %v, want nil at the bound", err)
			}
			if st := s.Stats(); st.UnconfirmedRevokes != 1 || st.MissingAcks != 1 {
				t.Errorf("stats %+v, want one unconfirmed revocation missing one ack", st)
			}
			if b, err := os.ReadFile(logs.Name()); err != nil || !strings.Contains(string(b), "missing_acks=1") {
				t.Errorf("no warning naming the missing ack in the log (%v):\n%s", err, b)
			}
			if res, err := r.Check(t.Context(), q("rv_unacked")); err != nil || !res.Revoked {
				t.Errorf("Redis.Check = %+v, %v; want revoked", res, err)
			}
		})
	}
}

// TestSyncedRevokeCancelledWhileWaiting: a context that ends while Revoke
// waits for acknowledgements makes it return ErrUnconfirmed wrapping the
// context's error; the revocation is stored all the same.
func TestSyncedRevokeCancelledWhileWaiting(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{MaxStaleness: time.Minute})
	sub := srv.NewClient(nil).Subscribe(t.Context(), r.keys.channel())
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Revoke(ctx, "rv_cancelled", time.Now().Add(time.Hour)) }()
	// Once the silent subscriber has the event, Revoke is past the write
	// and waits for an acknowledgement that never comes.
	if _, err := sub.ReceiveMessage(t.Context()); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	if !errors.Is(err, ErrUnconfirmed) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Revoke = %v, want ErrUnconfirmed wrapping context.Canceled", err)
	}
	if res, err := r.Check(t.Context(), q("rv_cancelled")); err != nil || !res.Revoked {
		t.Errorf("Redis.Check = %+v, %v; want revoked", res, err)
	}
	if !localHas(s, "rv_cancelled") {
		t.Error("the revoking replica does not hold its own revocation")
	}
}

// TestSyncedClosedReplicaIsNotWaitedFor: a replica that closed leaves the
// registry, so revocations on the others do not wait for it.
func TestSyncedClosedReplicaIsNotWaitedFor(t *testing.T) {
	srv := redistest.Start(t)
	a, b := twoReplicas(t, func() redis.UniversalClient { return srv.NewClient(nil) }, SyncedOptions{MaxStaleness: time.Minute})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	live, err := a.redis.liveReplicas(t.Context())
	if err != nil || len(live) != 1 || live[0] != a.id {
		t.Fatalf("live replicas %v, %v; want only A", live, err)
	}
	if err := a.Revoke(t.Context(), "rv_after_close", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.UnconfirmedRevokes != 0 {
		t.Errorf("stats %+v: waited for a closed replica", st)
	}
}

// TestSyncedCloseLeavesNoLease: a replica closed while its lease renewals
// run back to back (1 ms pings) leaves no lease behind, so no revoke
// elsewhere waits for it. Deregistering before the loop stopped let an
// in-flight renewal write the lease back.
func TestSyncedCloseLeavesNoLease(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := twoReplicas(t, func() redis.UniversalClient { return srv.NewClient(nil) }, SyncedOptions{})
	fast := SyncedOptions{MaxStaleness: 50 * time.Millisecond, PingInterval: time.Millisecond}
	for i := range 30 {
		s := startSynced(t, startRedis(t, srv.NewClient(nil), RedisOptions{Prefix: a.redis.keys.prefix, Timeout: 2 * time.Second}), fast)
		time.Sleep(time.Duration(i%5) * time.Millisecond)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	live, err := a.redis.liveReplicas(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 { // a and b
		t.Fatalf("%d live leases after closing every other replica, want 2: %v", len(live), live)
	}
}

// TestSyncedAcknowledgesTaggedEventsOnly: an event without a nonce (from
// Redis.Revoke or a write-back) is applied and not acknowledged; one with
// a nonce is applied and acknowledged with the replica's id.
func TestSyncedAcknowledgesTaggedEventsOnly(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{})
	acks := srv.NewClient(nil).Subscribe(t.Context(), r.keys.acks())
	t.Cleanup(func() { _ = acks.Close() })
	if _, err := acks.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(time.Hour).UnixMilli()
	nonce := newToken()
	for _, ev := range []string{fmt.Sprintf("i:%d:rv_plain", until), fmt.Sprintf("n:%s:i:%d:rv_tagged", nonce, until)} {
		if err := srv.Client.Publish(t.Context(), r.keys.channel(), ev).Err(); err != nil {
			t.Fatal(err)
		}
	}
	msg, err := acks.ReceiveMessage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := formatAck(nonce, s.id); msg.Payload != want {
		t.Fatalf("ack %q, want %q", msg.Payload, want)
	}
	if !localHas(s, "rv_plain") || !localHas(s, "rv_tagged") {
		t.Fatal("events not applied")
	}
}
