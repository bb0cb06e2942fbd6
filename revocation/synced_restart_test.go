package revocation

import (
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// TestReplicaStartedAfterEmptyRestart: Redis is down for 7 s, long enough
// for a running replica's reconnect backoff to reach its cap, and comes
// back empty. A replica started right then, with the production defaults
// (MaxStaleness, breaker, and the init grace the gateway derives), must
// never answer "not revoked" for a capability the running replica holds
// as revoked: it answers revoked or fails closed (ErrUnavailable).
func TestReplicaStartedAfterEmptyRestart(t *testing.T) {
	srv := redistest.Start(t)
	ropts := RedisOptions{Prefix: freshPrefix(), InitGrace: MinInitGrace(DefaultMaxStaleness, BreakerOptions{})}
	a := startSynced(t, startRedis(t, srv.NewClient(nil), ropts), SyncedOptions{})
	revoked, unknown := q("rv_root", "rv_child"), q("rv_other", "rv_unknown")
	if err := a.Revoke(t.Context(), "rv_root", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	never := func(string) bool { return false }
	trA := startTraffic(map[string]Store{"running replica": a}, revoked, unknown, never)
	t.Cleanup(func() { trA.finish(t, DefaultTimeout) })

	srv.Kill()
	time.Sleep(7 * time.Second)
	srv.Restart()
	restarted := time.Now()
	wroteBack := make(chan time.Duration, 1)
	go func() {
		for a.Stats().Restored == 0 {
			time.Sleep(time.Millisecond)
		}
		wroteBack <- time.Since(restarted)
	}()

	rB := startRedis(t, srv.NewClient(nil), ropts)
	b := startSynced(t, rB, SyncedOptions{})
	t.Logf("new replica ready %v after redis came back", time.Since(restarted).Round(time.Millisecond))
	trB := startTraffic(map[string]Store{"new replica": b, "new replica's redis": rB}, revoked, unknown, never)
	t.Cleanup(func() { trB.finish(t, DefaultTimeout) })
	eventually(t, "the new replica holds the revocation", func() bool { return localHas(b, "rv_root") })
	for name, s := range map[string]Store{"running replica": a, "new replica": b, "new replica's redis": rB} {
		eventually(t, name+" answers again", func() bool { return answers(s, unknown, false) })
	}
	t.Logf("running replica wrote back %v after redis came back (init grace %v)", (<-wroteBack).Round(time.Millisecond), ropts.InitGrace)
	time.Sleep(500 * time.Millisecond) // the new replica serves for a while
}

// TestDefaultInitGraceOutlastsReconnect: the default grace is the one
// MinInitGrace derives from the default staleness and breaker, and every
// grace it derives exceeds MaxStaleness plus the reconnect cap.
func TestDefaultInitGraceOutlastsReconnect(t *testing.T) {
	if got := MinInitGrace(DefaultMaxStaleness, BreakerOptions{}); got != DefaultInitGrace {
		t.Errorf("MinInitGrace(defaults) = %v, DefaultInitGrace = %v", got, DefaultInitGrace)
	}
	for _, m := range []time.Duration{minStaleness, 400 * time.Millisecond, DefaultMaxStaleness, time.Minute} {
		if g := MinInitGrace(m, BreakerOptions{CoolDown: 3 * time.Second}); g < m+reconnectCap(m)+3*time.Second {
			t.Errorf("MinInitGrace(%v) = %v: shorter than staleness, reconnect cap and cool-down", m, g)
		}
	}
}
