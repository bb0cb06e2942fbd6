package revocation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// localHas reports whether s's local set alone says id is revoked.
func localHas(s *Synced, id string) bool {
	return s.set.check(q(id), s.opts.Now()).Revoked
}

// TestSyncedPropagation measures how long a revocation made on replica A
// takes to reach replica B's local set. It logs the distribution and
// asserts only that every revocation arrives.
func TestSyncedPropagation(t *testing.T) {
	srv := redistest.Start(t)
	prefix := freshPrefix()
	a := startSynced(t, startRedis(t, srv.NewClient(nil), RedisOptions{Prefix: prefix}), SyncedOptions{})
	b := startSynced(t, startRedis(t, srv.NewClient(nil), RedisOptions{Prefix: prefix}), SyncedOptions{})
	const trials = 200
	took := make([]time.Duration, 0, trials)
	for i := range trials {
		id := fmt.Sprintf("rv_prop_%d", i)
		start := time.Now()
		if err := a.Revoke(t.Context(), id, start.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		deadline := start.Add(10 * time.Second)
		for !localHas(b, id) {
			if time.Now().After(deadline) {
				t.Fatalf("trial %d: revocation never reached replica B", i)
			}
			time.Sleep(20 * time.Microsecond)
		}
		took = append(took, time.Since(start))
		if res, err := b.Check(t.Context(), q(id)); err != nil || !res.Revoked {
			t.Fatalf("trial %d: B.Check = %+v, %v", i, res, err)
		}
	}
	slices.Sort(took)
	t.Logf("propagation A.Revoke -> B local set over %d trials: p50 %v, p90 %v, p99 %v, max %v",
		trials, took[trials/2], took[trials*9/10], took[trials*99/100], took[trials-1])
	if st := b.Stats(); !st.Healthy || st.Size != trials || st.Resyncs != 1 {
		t.Errorf("B stats %+v, want healthy with %d entries after one resync", st, trials)
	}
}

func TestSyncedToleratesGarbageOnTheChannel(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{})
	before := s.Stats().Resyncs
	for _, garbage := range []string{"", "garbage", "i:-1:rv_x", "p:1:2:", "i:1:rv with space", "\x00\xff"} {
		if err := srv.Client.Publish(t.Context(), r.keys.channel(), garbage).Err(); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "six malformed events counted and resynced", func() bool {
		st := s.Stats()
		return st.Malformed == 6 && st.Resyncs >= before+6 && st.Healthy
	})
	if err := r.Revoke(t.Context(), "rv_after_garbage", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "revocation still propagates", func() bool { return localHas(s, "rv_after_garbage") })
}

// TestSyncedForgedEventCanOnlyDeny: whoever can publish on the channel can
// add revocations but never remove one.
func TestSyncedForgedEventCanOnlyDeny(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{})
	if err := s.Revoke(t.Context(), "rv_real", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// An event with an until in the past is the closest thing to an
	// "unrevoke" the format can say; it must not shorten anything.
	if err := srv.Client.Publish(t.Context(), r.keys.channel(), "i:1:rv_real").Err(); err != nil {
		t.Fatal(err)
	}
	forged := fmt.Sprintf("i:%d:rv_forged", time.Now().Add(time.Hour).UnixMilli())
	if err := srv.Client.Publish(t.Context(), r.keys.channel(), forged).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "forged event applied", func() bool { return localHas(s, "rv_forged") })
	if !localHas(s, "rv_real") {
		t.Fatal("an event with an earlier until shortened a revocation")
	}
}

// TestSyncedResyncsOnResubscribe: an event missed while disconnected is
// recovered by the resync that follows the new subscription.
func TestSyncedResyncsOnResubscribe(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{})
	before := s.Stats().Resyncs
	// Written without publishing: only a resync can find it.
	e := entry{name: "rv_missed", cutoff: cutoff{untilMs: time.Now().Add(time.Hour).UnixMilli()}}
	if _, err := r.writeEntry(t.Context(), e, false, ""); err != nil {
		t.Fatal(err)
	}
	if localHas(s, "rv_missed") {
		t.Fatal("unpublished revocation reached the local set")
	}
	if err := srv.Client.ClientKillByFilter(t.Context(), "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "resync after resubscribe finds the missed revocation", func() bool {
		return localHas(s, "rv_missed") && s.Stats().Resyncs > before
	})
}

// TestSyncedRestoresWhatRedisLost: after Redis loses its data, the next
// resync writes back what the replica still holds.
func TestSyncedRestoresWhatRedisLost(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{})
	s := startSynced(t, r, SyncedOptions{})
	now := time.Now()
	if err := s.Revoke(t.Context(), "rv_kept", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokePrincipal(t.Context(), "user:kept", now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.ClientKillByFilter(t.Context(), "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	pq := Query{IDs: []string{"rv_other"}, Principal: "user:kept", IssuedAt: now.Add(-time.Minute)}
	eventually(t, "Redis answers revoked again", func() bool {
		a, err1 := r.Check(t.Context(), q("rv_kept"))
		b, err2 := r.Check(t.Context(), pq)
		return err1 == nil && err2 == nil && a.Revoked && b.Revoked
	})
	if st := s.Stats(); st.Restored != 2 {
		t.Errorf("Restored = %d, want 2", st.Restored)
	}
}

func TestNewSyncedFailsWithoutRedis(t *testing.T) {
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{Timeout: 100 * time.Millisecond})
	srv.Kill()
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	s, err := NewSynced(ctx, r, SyncedOptions{})
	if !errors.Is(err, ErrUnavailable) || s != nil {
		t.Fatalf("NewSynced with Redis down = %v, %v; want ErrUnavailable", s, err)
	}
	if _, err := NewSynced(t.Context(), nil, SyncedOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("NewSynced(nil) = %v, want ErrInvalidOptions", err)
	}
}

// TestSyncedClusterResyncAndHealth: on Cluster the initial resync scans
// every master, and the subscription stays healthy (pings answered, no
// reconnect loop).
func TestSyncedClusterResyncAndHealth(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	r := startRedis(t, cluster.Client, RedisOptions{})
	now := time.Now()
	const n = 300 // spread over every master's slots
	for i := range n {
		if err := r.Revoke(t.Context(), fmt.Sprintf("rv_c%d", i), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.RevokePrincipal(t.Context(), "user:c", now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s := startSynced(t, r, SyncedOptions{MaxStaleness: 400 * time.Millisecond})
	for i := range n {
		if id := fmt.Sprintf("rv_c%d", i); !localHas(s, id) {
			t.Fatalf("initial resync missed %s", id)
		}
	}
	pq := Query{IDs: []string{"rv_x"}, Principal: "user:c", IssuedAt: now.Add(-time.Minute)}
	if !s.set.check(pq, time.Now()).Revoked {
		t.Fatal("initial resync missed the principal cutoff")
	}
	time.Sleep(time.Second) // several ping intervals
	if st := s.Stats(); !st.Healthy || st.Resyncs != 1 || st.Size != n+1 {
		t.Fatalf("stats %+v, want healthy after exactly one resync with %d entries", st, n+1)
	}
	if err := r.Revoke(t.Context(), "rv_late", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "an event published on another node arrives", func() bool { return localHas(s, "rv_late") })
}
