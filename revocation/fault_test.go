package revocation

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation/redistest"
)

// traffic calls Check in a loop on several stores from several goroutines
// and records every outcome, the slowest call per store, and anything that
// breaks the fail-closed contract.
type traffic struct {
	stop chan struct{}
	wg   sync.WaitGroup

	mu         sync.Mutex
	slowest    map[string]time.Duration
	outcomes   map[string]int
	violations []string
}

// startTraffic checks revoked and unknown on every store until stop.
// A store named in mayForget(name) may answer "not revoked" for revoked;
// any other such answer is a violation.
func startTraffic(stores map[string]Store, revoked, unknown Query, mayForget func(string) bool) *traffic {
	tr := &traffic{stop: make(chan struct{}), slowest: map[string]time.Duration{}, outcomes: map[string]int{}}
	for range 4 {
		tr.wg.Go(func() {
			for {
				select {
				case <-tr.stop:
					return
				case <-time.After(time.Millisecond):
				}
				for name, s := range stores {
					tr.one(name, s, "revoked", revoked, !mayForget(name))
					tr.one(name, s, "unknown", unknown, false)
				}
			}
		})
	}
	return tr
}

func (tr *traffic) one(name string, s Store, what string, q Query, mustDeny bool) {
	start := time.Now()
	res, err := s.Check(bg(), q)
	took := time.Since(start)
	outcome := "allowed"
	switch {
	case err != nil && errors.Is(err, ErrUnavailable):
		outcome = "unavailable"
	case err != nil:
		outcome = "error"
	case res.Revoked:
		outcome = "revoked"
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.slowest[name] = max(tr.slowest[name], took)
	tr.outcomes[name+" "+what+" "+outcome]++
	if outcome == "error" || (mustDeny && outcome == "allowed") {
		tr.violations = append(tr.violations, fmt.Sprintf("%s: %s query answered %+v, %v", name, what, res, err))
	}
}

// finish stops the traffic, logs what it saw and fails on violations or
// a call far slower than the timeout.
func (tr *traffic) finish(t *testing.T, timeout time.Duration) {
	t.Helper()
	close(tr.stop)
	tr.wg.Wait()
	keys := make([]string, 0, len(tr.outcomes))
	for k := range tr.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %d\n", k, tr.outcomes[k])
	}
	t.Logf("outcomes:\n%s", b.String())
	for name, d := range tr.slowest {
		t.Logf("slowest Check on %s: %v (timeout %v)", name, d.Round(time.Microsecond), timeout)
		if d > timeout+2*time.Second {
			t.Errorf("a Check on %s took %v, far beyond the %v timeout", name, d, timeout)
		}
	}
	for i, v := range tr.violations {
		if i == 10 {
			t.Errorf("... and %d more", len(tr.violations)-10)
			break
		}
		t.Error(v)
	}
}

// answers reports whether s answers q with (revoked, nil) or, when
// wantRevoked is false, (not revoked, nil).
func answers(s Store, q Query, wantRevoked bool) bool {
	res, err := s.Check(bg(), q)
	return err == nil && res.Revoked == wantRevoked
}

// failsClosed reports whether s answers q with ErrUnavailable.
func failsClosed(s Store, q Query) bool {
	_, err := s.Check(bg(), q)
	return errors.Is(err, ErrUnavailable)
}

func TestFaultKillAndRestart(t *testing.T) {
	const timeout = 250 * time.Millisecond
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{Timeout: timeout, Breaker: BreakerOptions{FailureThreshold: 3, CoolDown: 200 * time.Millisecond}})
	s := startSynced(t, r, SyncedOptions{MaxStaleness: 500 * time.Millisecond})
	revoked, unknown := q("rv_root", "rv_revoked"), q("rv_root", "rv_unknown")
	if err := s.Revoke(t.Context(), "rv_revoked", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tr := startTraffic(map[string]Store{"redis": r, "synced": s}, revoked, unknown, func(string) bool { return false })
	time.Sleep(300 * time.Millisecond)

	srv.Kill()
	eventually(t, "both stores fail closed on an unknown id", func() bool {
		return failsClosed(r, unknown) && failsClosed(s, unknown)
	})
	if !answers(s, revoked, true) {
		t.Fatal("synced store forgot a revocation when Redis died")
	}
	time.Sleep(time.Second) // traffic runs against the dead Redis

	srv.Restart() // same port, empty: no persistence
	eventually(t, "synced store answers again", func() bool { return answers(s, unknown, false) })
	eventually(t, "redis store answers again", func() bool { return answers(r, unknown, false) })
	eventually(t, "the synced replica wrote the lost revocation back", func() bool { return answers(r, revoked, true) })
	eventually(t, "synced store healthy", func() bool { return s.Stats().Healthy })
	tr.finish(t, timeout)
	t.Logf("synced stats after recovery: %+v; redis stats: %+v", s.Stats(), r.Stats())
	if st := s.Stats(); st.Restored == 0 {
		t.Errorf("Restored = 0 after Redis came back empty")
	}
}

func TestFaultPauseAndResume(t *testing.T) {
	const timeout = 250 * time.Millisecond
	srv := redistest.Start(t)
	r := startRedis(t, srv.Client, RedisOptions{Timeout: timeout, Breaker: BreakerOptions{FailureThreshold: 3, CoolDown: 300 * time.Millisecond}})
	s := startSynced(t, r, SyncedOptions{MaxStaleness: 600 * time.Millisecond})
	revoked, unknown := q("rv_root", "rv_revoked"), q("rv_root", "rv_unknown")
	if err := s.Revoke(t.Context(), "rv_revoked", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tr := startTraffic(map[string]Store{"redis": r, "synced": s}, revoked, unknown, func(string) bool { return false })
	time.Sleep(200 * time.Millisecond)

	srv.Pause()
	eventually(t, "breaker opens", func() bool { return r.Stats().Breaker == BreakerOpen })
	var slowest time.Duration
	open := 0
	for range 50 {
		start := time.Now()
		_, err := r.Check(t.Context(), unknown)
		slowest = max(slowest, time.Since(start))
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Check on a paused Redis = %v, want ErrUnavailable", err)
		}
		if errors.Is(err, ErrCircuitOpen) {
			open++
		}
	}
	t.Logf("paused Redis: %d of 50 calls refused by the open breaker; slowest %v", open, slowest)
	if open == 0 {
		t.Error("no call was refused by the breaker while Redis hung")
	}
	eventually(t, "synced store stops trusting its local set", func() bool { return !s.Stats().Healthy })
	if !failsClosed(s, unknown) || !answers(s, revoked, true) {
		t.Fatal("stale synced store did not fail closed (unknown) and deny (revoked)")
	}

	srv.Resume()
	eventually(t, "breaker closes", func() bool { return answers(r, unknown, false) && r.Stats().Breaker == BreakerClosed })
	eventually(t, "synced store healthy", func() bool { return s.Stats().Healthy })
	tr.finish(t, timeout)
}
