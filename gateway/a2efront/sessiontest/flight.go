package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2efront"
)

func testAdmit(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	soon, later := clock.Now().Add(time.Minute), clock.Now().Add(time.Hour)
	steps := []struct {
		st    a2efront.SessionStore
		req   string
		until time.Time
		want  a2efront.Admission
	}{
		{a, "r1", soon, a2efront.Admitted},
		{b, "r1", later, a2efront.Duplicate},
		{b, "r2", later, a2efront.Admitted},
		{a, "r3", later, a2efront.Full},
	}
	for _, st := range steps {
		got, err := st.st.Admit(ctx, s.ID, st.req, 2, st.until)
		if err != nil || got != st.want {
			t.Fatalf("Admit(%s) = %v, %v; want %v", st.req, got, err, st.want)
		}
	}
	if n, err := b.InFlight(ctx, s.ID); n != 2 || err != nil {
		t.Errorf("InFlight = %d, %v; want 2", n, err)
	}
	if was, err := b.Complete(ctx, s.ID, "r2"); !was || err != nil {
		t.Errorf("Complete(r2) = %v, %v; want true", was, err)
	}
	if was, _ := a.Complete(ctx, s.ID, "r2"); was {
		t.Error("a second Complete(r2) reported it in flight")
	}
	if was, _ := a.Complete(ctx, s.ID, "never"); was {
		t.Error("Complete of an unknown request reported it in flight")
	}
	if got, _ := a.Admit(ctx, s.ID, "r3", 2, later); got != a2efront.Admitted {
		t.Errorf("Admit(r3) after a completion = %v, want Admitted", got)
	}
	clock.Advance(2 * time.Minute) // r1's deadline passes
	if got, _ := b.Admit(ctx, s.ID, "r4", 2, later); got != a2efront.Admitted {
		t.Errorf("Admit(r4) after r1's deadline = %v, want Admitted", got)
	}
	if n, _ := a.InFlight(ctx, s.ID); n != 2 {
		t.Errorf("InFlight = %d, want 2", n)
	}
}

func testConcurrentAdmits(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for i := range 24 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := st.Admit(context.Background(), s.ID, fmt.Sprintf("r%d", i), 3, clock.Now().Add(time.Hour))
			if err != nil {
				t.Errorf("Admit: %v", err)
			}
			if got == a2efront.Admitted {
				admitted.Add(1)
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != 3 {
		t.Errorf("%d requests admitted with max 3", admitted.Load())
	}
}

// receive reads n messages from sub.
func receive(t *testing.T, sub a2efront.Subscription, n int) []string {
	t.Helper()
	var out []string
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(out) < n {
		select {
		case m, ok := <-sub.C():
			if !ok {
				t.Fatalf("subscription closed after %d of %d messages", len(out), n)
			}
			out = append(out, string(m))
		case <-timer.C:
			t.Fatalf("got %d of %d messages within %v", len(out), n, wait)
		}
	}
	return out
}

func testPubSub(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	if err := b.Publish(ctx, s.ID, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	sub, err := a.Subscribe(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 4; i++ {
		if err := b.Publish(ctx, s.ID, fmt.Appendf(nil, `{"n":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	got := receive(t, sub, 4)
	for i, m := range got {
		if want := fmt.Sprintf(`{"n":%d}`, i+1); m != want {
			t.Errorf("message %d = %s, want %s", i, m, want)
		}
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	for range sub.C() {
		t.Error("a closed subscription delivered a message")
	}
	// Messages published with no subscriber wait for the next one.
	if err := a.Publish(ctx, s.ID, []byte(`{"n":5}`)); err != nil {
		t.Fatal(err)
	}
	sub2, err := b.Subscribe(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	if got := receive(t, sub2, 1); got[0] != `{"n":5}` {
		t.Errorf("queued message = %s", got[0])
	}
}

func testMailboxLimit(t *testing.T, newStores Factory) {
	clock := start()
	a, b := newStores(t, clock)
	ctx := context.Background()
	s := session(clock, time.Hour)
	mustCreate(t, a, s)
	total := a2efront.MailboxLimit + 10
	for i := range total {
		if err := a.Publish(ctx, s.ID, fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := b.Subscribe(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	got := receive(t, sub, a2efront.MailboxLimit)
	if got[0] != "10" || got[len(got)-1] != fmt.Sprint(total-1) {
		t.Errorf("kept %s..%s, want the newest %d", got[0], got[len(got)-1], a2efront.MailboxLimit)
	}
}

func testMissing(t *testing.T, newStores Factory) {
	clock := start()
	a, _ := newStores(t, clock)
	ctx := context.Background()
	for _, id := range []string{newID(), "", "a}b{c", "x:y", "../../etc"} {
		if _, err := a.Get(ctx, id); !errors.Is(err, a2efront.ErrSessionNotFound) {
			t.Errorf("Get(%q): %v, want ErrSessionNotFound", id, err)
		}
		if _, err := a.Admit(ctx, id, "r", 4, clock.Now().Add(time.Minute)); !errors.Is(err, a2efront.ErrSessionNotFound) {
			t.Errorf("Admit(%q): %v, want ErrSessionNotFound", id, err)
		}
		if err := a.Publish(ctx, id, []byte("x")); !errors.Is(err, a2efront.ErrSessionNotFound) {
			t.Errorf("Publish(%q): %v, want ErrSessionNotFound", id, err)
		}
	}
}
