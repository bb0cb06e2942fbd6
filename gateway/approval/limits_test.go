package approval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
)

// ask is sample() asked by principal with purpose n.
func ask(principal string, n int) approval.Request {
	r := sample()
	r.Principal, r.Purpose = principal, fmt.Sprintf("task %d", n)
	return r
}

// TestPendingBoundPerPrincipal: a principal holds at most MaxPending
// requests waiting; asking the same again returns the waiting request;
// others are not affected; a decided or expired request frees its place.
func TestPendingBoundPerPrincipal(t *testing.T) {
	const frank = "user:frank@example.com"
	for _, tc := range []struct {
		name string
		// then runs after carol filled her 3 places.
		then    func(ctx context.Context, w *world, ids []string) (approval.Request, error)
		wantErr error
		wantID  int // index into carol's ids of the answer; -1 for a new one
	}{
		{name: "one more is refused", wantErr: approval.ErrTooManyPending,
			then: func(ctx context.Context, w *world, _ []string) (approval.Request, error) {
				return w.b.Create(ctx, ask(carol, 9))
			}},
		{name: "the same ask again returns the waiting one", wantID: 1,
			then: func(ctx context.Context, w *world, _ []string) (approval.Request, error) {
				return w.b.Create(ctx, ask(carol, 1))
			}},
		{name: "another principal is not bound by carol's", wantID: -1,
			then: func(ctx context.Context, w *world, _ []string) (approval.Request, error) {
				return w.b.Create(ctx, ask(frank, 1))
			}},
		{name: "a denied request frees its place", wantID: -1,
			then: func(ctx context.Context, w *world, ids []string) (approval.Request, error) {
				if _, err := w.a.Deny(ctx, ids[0], dave, "no"); err != nil {
					return approval.Request{}, err
				}
				return w.b.Create(ctx, ask(carol, 9))
			}},
		{name: "an expired request frees its place", wantID: -1,
			then: func(ctx context.Context, w *world, _ []string) (approval.Request, error) {
				w.clk.add(2 * time.Hour)
				return w.b.Create(ctx, ask(carol, 9))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runWith(t, approval.Options{MaxPending: 3}, func(t *testing.T, w *world) {
				ctx := context.Background()
				var ids []string
				for i := range 3 {
					r, err := w.a.Create(ctx, ask(carol, i))
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, r.ID)
				}
				got, err := tc.then(ctx, w, ids)
				if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if err != nil {
					var le *approval.PendingLimitError
					if !errors.As(err, &le) || le.Limit != 3 || !strings.Contains(err.Error(), "max_pending_per_principal") {
						t.Errorf("refusal does not name the limit: %#v", err)
					}
					return
				}
				if tc.wantID >= 0 && got.ID != ids[tc.wantID] {
					t.Errorf("got %s, want the waiting %s", got.ID, ids[tc.wantID])
				}
				if tc.wantID < 0 && (got.ID == "" || strings.Contains(strings.Join(ids, " "), got.ID)) {
					t.Errorf("got %q, want a new request", got.ID)
				}
				want := 3 // a waiting request answered is not requested again
				if tc.wantID < 0 {
					want = 4
				}
				if n := strings.Count(w.audit.String(), approval.EventRequested); n != want {
					t.Errorf("%d requested events, want %d", n, want)
				}
			})
		})
	}
}

// TestListKeepsBeforeLimit: the newest Limit requests of those Keep
// accepts, however many newer requests it leaves out.
func TestListKeepsBeforeLimit(t *testing.T) {
	run(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		early, err := w.a.Create(ctx, ask("user:frank@example.com", 0))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			w.clk.add(time.Second)
			if _, err := w.a.Create(ctx, ask(carol, i)); err != nil {
				t.Fatal(err)
			}
		}
		list, err := w.b.List(ctx, approval.Filter{Status: approval.StatusPending, Limit: 2,
			Keep: func(r *approval.Request) bool { return r.Principal != carol }})
		if err != nil || len(list) != 1 || list[0].ID != early.ID {
			t.Fatalf("list = %+v %v, want only %s", list, err, early.ID)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg     *approval.Config
		wantErr error
	}{
		{nil, nil},
		{&approval.Config{}, nil},
		{&approval.Config{MaxPendingPerPrincipal: 1}, nil},
		{&approval.Config{MaxPendingPerPrincipal: approval.MaxPendingLimit}, nil},
		{&approval.Config{MaxPendingPerPrincipal: -1}, approval.ErrConfig},
		{&approval.Config{MaxPendingPerPrincipal: approval.MaxPendingLimit + 1}, approval.ErrConfig},
	} {
		err := tc.cfg.Validate()
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("%+v: err = %v, want %v", tc.cfg, err, tc.wantErr)
		}
		if _, _, err := approval.Open(tc.cfg, approval.OpenOptions{}); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("Open(%+v): err = %v, want %v", tc.cfg, err, tc.wantErr)
		}
	}
}
