package sessiontest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2efront"
)

// anonLimits allow 10 sessions, 4 of them anonymous, 2 per client.
var anonLimits = a2efront.Limits{Max: 10, Anonymous: 4, PerClient: 2}

// anonymous is a session reserved without credentials by client.
func anonymous(clock *Clock, client string) a2efront.Session {
	s := session(clock, time.Minute)
	s.Client = client
	return s
}

// create creates s under anonLimits on st and returns the error.
func create(st a2efront.SessionStore, s a2efront.Session) error {
	return st.Create(context.Background(), s, anonLimits)
}

// testAnonymousShare: anonymous reservations stay within their share and
// each client within its part, across replicas, while sessions reserved
// with credentials still find room.
func testAnonymousShare(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	for i, st := range []a2efront.SessionStore{a, b} {
		if err := create(st, anonymous(clock, "192.0.2.1")); err != nil {
			t.Fatalf("anonymous session %d of the first client: %v", i, err)
		}
	}
	if err := create(a, anonymous(clock, "192.0.2.1")); !errors.Is(err, a2efront.ErrClientLimit) {
		t.Fatalf("third anonymous session of one client: %v, want ErrClientLimit", err)
	}
	for _, client := range []string{"192.0.2.2", "192.0.2.3"} {
		if err := create(b, anonymous(clock, client)); err != nil {
			t.Fatalf("anonymous session of %s: %v", client, err)
		}
	}
	if err := create(a, anonymous(clock, "192.0.2.4")); !errors.Is(err, a2efront.ErrAnonymousLimit) {
		t.Fatalf("anonymous session beyond the share: %v, want ErrAnonymousLimit", err)
	}
	for i := range 6 {
		if err := create(a, session(clock, time.Minute)); err != nil {
			t.Fatalf("session %d reserved with credentials: %v, want room", i, err)
		}
	}
	if err := create(b, session(clock, time.Minute)); !errors.Is(err, a2efront.ErrSessionLimit) {
		t.Fatalf("session beyond max: %v, want ErrSessionLimit", err)
	}
}

// testAnonymousRelease: an anonymous reservation leaves the share when
// its session gains a principal, is deleted, or expires.
func testAnonymousRelease(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	first, second := anonymous(clock, "192.0.2.1"), anonymous(clock, "192.0.2.1")
	for _, s := range []a2efront.Session{first, second} {
		if err := create(a, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.Get(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.Principal = "user:alice@example.com"
	if _, err := b.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := create(a, anonymous(clock, "192.0.2.1")); err != nil {
		t.Fatalf("after one authenticated: %v, want room for the client", err)
	}
	if err := b.Delete(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	if err := create(a, anonymous(clock, "192.0.2.1")); err != nil {
		t.Fatalf("after one was deleted: %v, want room for the client", err)
	}
	if err := create(a, anonymous(clock, "192.0.2.1")); !errors.Is(err, a2efront.ErrClientLimit) {
		t.Fatalf("client at its limit again: %v, want ErrClientLimit", err)
	}
	clock.Advance(2 * time.Minute)
	if err := create(b, anonymous(clock, "192.0.2.1")); err != nil {
		t.Fatalf("after they expired: %v, want room for the client", err)
	}
}
