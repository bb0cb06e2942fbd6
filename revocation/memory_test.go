package revocation

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestSetPrune(t *testing.T) {
	s := newSet()
	s.addID("rv_old", 100)
	s.addID("rv_new", 300)
	s.addPrincipal("user:old", cutoff{beforeMs: 50, untilMs: 100})
	s.addPrincipal("user:new", cutoff{beforeMs: 50, untilMs: 300})
	if n := s.prune(200); n != 2 {
		t.Fatalf("prune(200) dropped %d, want 2", n)
	}
	if n := s.len(); n != 2 {
		t.Fatalf("len() = %d after prune, want 2", n)
	}
	if res := s.check(Query{IDs: []string{"rv_new"}}, time.UnixMilli(250)); !res.Revoked {
		t.Fatal("prune dropped a live id")
	}
}

func TestSetMissingFrom(t *testing.T) {
	local, redis := newSet(), newSet()
	local.addID("rv_both", 500)
	local.addID("rv_lost", 500)
	local.addID("rv_expired", 50)
	local.addPrincipal("user:lost", cutoff{beforeMs: 10, untilMs: 500})
	local.addPrincipal("user:later", cutoff{beforeMs: 20, untilMs: 500})
	local.addPrincipal("user:same", cutoff{beforeMs: 20, untilMs: 500})
	redis.addID("rv_both", 490) // TTLs read back run a little short: still covered
	redis.addPrincipal("user:later", cutoff{beforeMs: 10, untilMs: 500})
	redis.addPrincipal("user:same", cutoff{beforeMs: 30, untilMs: 400})

	got := map[string]bool{}
	for _, e := range local.missingFrom(redis, 100) {
		got[e.name] = true
	}
	want := map[string]bool{"rv_lost": true, "user:lost": true, "user:later": true}
	if len(got) != len(want) {
		t.Fatalf("missingFrom = %v, want %v", got, want)
	}
	for name := range want {
		if !got[name] {
			t.Fatalf("missingFrom = %v, want %v", got, want)
		}
	}

	local.merge(redis, 100)
	q := Query{IDs: []string{"rv_x"}, Principal: "user:same", IssuedAt: time.UnixMilli(25)}
	if res := local.check(q, time.UnixMilli(100)); !res.Revoked {
		t.Fatal("merge did not move the cutoff later")
	}
}

func TestMemoryCheckDoesNotAllocate(t *testing.T) {
	m := NewMemory(MemoryOptions{})
	defer func() { _ = m.Close() }()
	ctx := context.Background()
	for _, id := range []string{"rv_a", "rv_b", "rv_c"} {
		if err := m.Revoke(ctx, id, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.RevokePrincipal(ctx, "user:a", time.Now().Add(-time.Hour), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	miss := Query{IDs: []string{"rv_x", "rv_y", "rv_z"}, Principal: "user:a", IssuedAt: time.Now()}
	hit := Query{IDs: []string{"rv_x", "rv_b"}, Principal: "user:a", IssuedAt: time.Now()}
	for name, q := range map[string]Query{"miss": miss, "id hit": hit} {
		allocs := testing.AllocsPerRun(1000, func() {
			if _, err := m.Check(ctx, q); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Check allocates %.1f times per call", name, allocs)
		}
	}
}

func TestMemoryJanitorPrunesAndStops(t *testing.T) {
	clock := &lockedClock{t: time.UnixMilli(1700000000000)}
	m := NewMemory(MemoryOptions{Now: clock.Now, PruneInterval: time.Millisecond})
	ctx := context.Background()
	if err := m.Revoke(ctx, "rv_a", clock.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for m.Len() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("janitor never pruned the expired entry")
		}
		time.Sleep(time.Millisecond)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.janitor.done:
	default:
		t.Fatal("Close returned before the janitor stopped")
	}
}

// lockedClock is a manual clock safe for use by background goroutines.
type lockedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *lockedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *lockedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
