package sessiontest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2efront"
)

// Clock is a manual clock for the stores under test.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Factory returns two handles on one fresh, empty backing store (two
// replicas sharing it), both reading clock. They may be the same value
// for a store that serves a single replica.
type Factory func(t *testing.T, clock *Clock) (a, b a2efront.SessionStore)

// wait bounds how long the suite waits for a delivery before failing. It
// is a liveness bound, not a timing assertion.
const wait = 10 * time.Second

// Run runs the suite.
func Run(t *testing.T, newStores Factory) {
	t.Run("create and get", func(t *testing.T) { testCreateGet(t, newStores) })
	t.Run("session limit", func(t *testing.T) { testLimit(t, newStores) })
	t.Run("anonymous share", func(t *testing.T) { testAnonymousShare(t, newStores) })
	t.Run("anonymous share is released", func(t *testing.T) { testAnonymousRelease(t, newStores) })
	t.Run("expiry", func(t *testing.T) { testExpiry(t, newStores) })
	t.Run("update compares revisions", func(t *testing.T) { testUpdate(t, newStores) })
	t.Run("concurrent updates", func(t *testing.T) { testConcurrentUpdates(t, newStores) })
	t.Run("delete", func(t *testing.T) { testDelete(t, newStores) })
	t.Run("admit and complete", func(t *testing.T) { testAdmit(t, newStores) })
	t.Run("concurrent admits", func(t *testing.T) { testConcurrentAdmits(t, newStores) })
	t.Run("publish and subscribe across replicas", func(t *testing.T) { testPubSub(t, newStores) })
	t.Run("mailbox limit", func(t *testing.T) { testMailboxLimit(t, newStores) })
	t.Run("missing session", func(t *testing.T) { testMissing(t, newStores) })
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func start() *Clock { return NewClock(time.Now().Truncate(time.Millisecond)) }

func session(clock *Clock, ttl time.Duration) a2efront.Session {
	now := clock.Now()
	return a2efront.Session{ID: newID(), Host: "lab", UpstreamID: "up-" + newID(), State: a2efront.StateNew,
		CreatedAt: now, ExpiresAt: now.Add(ttl)}
}

// limits allows max sessions, all of them anonymous if need be.
func limits(max int) a2efront.Limits {
	return a2efront.Limits{Max: max, Anonymous: max, PerClient: max}
}

func mustCreate(t *testing.T, st a2efront.SessionStore, s a2efront.Session) {
	t.Helper()
	if err := st.Create(context.Background(), s, limits(1000)); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func testCreateGet(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	s := session(clock, time.Hour)
	s.Groups, s.Requested, s.Denied = []string{"finance"}, []string{"tools", "env"}, map[string]string{"env": "denied by policy"}
	mustCreate(t, a, s)
	got, err := b.Get(context.Background(), s.ID)
	if err != nil {
		t.Fatalf("Get on the other replica: %v", err)
	}
	s.Rev = 1
	if !got.CreatedAt.Equal(s.CreatedAt) || !got.ExpiresAt.Equal(s.ExpiresAt) {
		t.Errorf("times changed: %v %v", got.CreatedAt, got.ExpiresAt)
	}
	got.CreatedAt, got.ExpiresAt = s.CreatedAt, s.ExpiresAt
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Get = %+v\nwant  %+v", got, s)
	}
	got.Groups[0] = "mutated"
	if again, _ := a.Get(context.Background(), s.ID); again.Groups[0] != "finance" {
		t.Error("a caller's change to a returned session reached the store")
	}
	if err := a.Create(context.Background(), s, limits(1000)); !errors.Is(err, a2efront.ErrConflict) {
		t.Errorf("Create with an existing id: %v, want ErrConflict", err)
	}
}

func testLimit(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	short := session(clock, time.Minute)
	if err := a.Create(ctx, short, limits(2)); err != nil {
		t.Fatal(err)
	}
	if err := b.Create(ctx, session(clock, time.Hour), limits(2)); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, session(clock, time.Hour), limits(2)); !errors.Is(err, a2efront.ErrSessionLimit) {
		t.Fatalf("third session: %v, want ErrSessionLimit", err)
	}
	clock.Advance(2 * time.Minute)
	if err := b.Create(ctx, session(clock, time.Hour), limits(2)); err != nil {
		t.Errorf("after one expired: %v, want room", err)
	}
}

func testExpiry(t *testing.T, newStores Factory) {
	clock := start()
	a, _ := newStores(t, clock)
	s := session(clock, time.Minute)
	mustCreate(t, a, s)
	clock.Advance(time.Minute)
	if _, err := a.Get(context.Background(), s.ID); !errors.Is(err, a2efront.ErrSessionNotFound) {
		t.Errorf("Get at expiry: %v, want ErrSessionNotFound", err)
	}
}

func testUpdate(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	s := session(clock, time.Minute)
	mustCreate(t, a, s)
	cur, _ := a.Get(ctx, s.ID)
	cur.State, cur.Accepted, cur.ExpiresAt = a2efront.StateReady, []string{"tools"}, clock.Now().Add(time.Hour)
	next, err := b.Update(ctx, cur)
	if err != nil || next.Rev != cur.Rev+1 {
		t.Fatalf("Update = rev %d, %v; want rev %d", next.Rev, err, cur.Rev+1)
	}
	if _, err := a.Update(ctx, cur); !errors.Is(err, a2efront.ErrConflict) {
		t.Errorf("stale Update: %v, want ErrConflict", err)
	}
	clock.Advance(2 * time.Minute)
	got, err := a.Get(ctx, s.ID)
	if err != nil || got.State != a2efront.StateReady || got.Rev != next.Rev {
		t.Errorf("after update and the old expiry: %+v, %v", got, err)
	}
}

func testConcurrentUpdates(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	cur, _ := a.Get(context.Background(), s.ID)
	var wins, conflicts atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cur
			c.Principal = fmt.Sprintf("user:%d", i)
			_, err := st.Update(context.Background(), c)
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, a2efront.ErrConflict):
				conflicts.Add(1)
			default:
				t.Errorf("Update: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 || conflicts.Load() != 15 {
		t.Errorf("%d updates won, %d conflicted; want 1 and 15", wins.Load(), conflicts.Load())
	}
}

func testDelete(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	if _, err := a.Admit(ctx, s.ID, "r1", 4, clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, s.ID); !errors.Is(err, a2efront.ErrSessionNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := a.Delete(ctx, s.ID); err != nil {
		t.Errorf("second Delete: %v", err)
	}
	if _, err := a.Update(ctx, s); !errors.Is(err, a2efront.ErrSessionNotFound) {
		t.Errorf("Update after Delete: %v, want ErrSessionNotFound", err)
	}
}
