package capindextest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/capindex"
)

// Run runs the suite. newIndex returns an empty index whose clock is now;
// stores that cannot use an injected clock may use real time, so the suite
// only relies on expiries well in the past or future.
func Run(t *testing.T, newIndex func(t *testing.T) capindex.Index) {
	ctx := context.Background()
	rec := func(id, principal, holder string, exp time.Duration) capindex.Record {
		now := time.Now()
		return capindex.Record{
			CapabilityID: id, Token: "token-" + id, Principal: principal, Holder: holder,
			Agent: "documents", Grant: "documents:read", IssuedAt: now,
			Expires: now.Add(exp), DisplayNames: map[string]string{"rh_1": "Q1"},
		}
	}
	t.Run("put then get", func(t *testing.T) {
		ix := newIndex(t)
		want := rec("cap_a", "user:a", "user:a", time.Hour)
		if err := ix.Put(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := ix.Get(ctx, "cap_a")
		if err != nil {
			t.Fatal(err)
		}
		if got.Token != want.Token || got.DisplayNames["rh_1"] != "Q1" || got.Expires.Unix() != want.Expires.Unix() {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		ix := newIndex(t)
		if _, err := ix.Get(ctx, "cap_missing"); !errors.Is(err, capindex.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("expired records are not returned", func(t *testing.T) {
		ix := newIndex(t)
		if err := ix.Put(ctx, rec("cap_old", "user:a", "user:a", -time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Get(ctx, "cap_old"); !errors.Is(err, capindex.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("list by principal or holder", func(t *testing.T) {
		ix := newIndex(t)
		for _, r := range []capindex.Record{
			rec("cap_1", "user:a", "user:a", time.Hour),
			rec("cap_2", "user:a", "agent:s", time.Hour),
			rec("cap_3", "user:b", "user:b", time.Hour),
			rec("cap_4", "user:a", "user:a", -time.Minute),
		} {
			if err := ix.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if got := ids(t, ix, "user:a"); got != "[cap_1 cap_2]" {
			t.Errorf("user:a: %s", got)
		}
		if got := ids(t, ix, "agent:s"); got != "[cap_2]" {
			t.Errorf("agent:s: %s", got)
		}
	})
	t.Run("list filtered and bounded", func(t *testing.T) {
		ix := newIndex(t)
		for i, r := range []capindex.Record{
			rec("cap_1", "user:a", "user:a", time.Hour),
			rec("cap_2", "user:a", "agent:s", time.Hour),
			rec("cap_3", "user:b", "user:b", time.Hour),
			rec("cap_4", "user:a", "user:a", -time.Minute),
		} {
			r.IssuedAt = r.IssuedAt.Add(time.Duration(i) * time.Second)
			if i == 2 {
				r.Agent, r.Grant = "calendar", "calendar:read"
			}
			if err := ix.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			f    capindex.Filter
			want string
		}{
			{capindex.Filter{}, "[cap_1 cap_2 cap_3]"},
			{capindex.Filter{Principal: "agent:s"}, "[cap_2]"},
			{capindex.Filter{Agent: "documents"}, "[cap_1 cap_2]"},
			{capindex.Filter{Grant: "calendar:read"}, "[cap_3]"},
			{capindex.Filter{Principal: "user:a", Grant: "calendar:read"}, "[]"},
			{capindex.Filter{Limit: 2}, "[cap_2 cap_3]"},
		} {
			rs, err := ix.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := idsOf(rs); got != tc.want {
				t.Errorf("List(%+v) = %s, want %s", tc.f, got, tc.want)
			}
		}
	})
	t.Run("concurrent puts and gets", func(t *testing.T) {
		ix := newIndex(t)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 50 {
					id := fmt.Sprintf("cap_%d_%d", i, j)
					if err := ix.Put(ctx, rec(id, "user:c", "user:c", time.Hour)); err != nil {
						t.Error(err)
						return
					}
					if _, err := ix.Get(ctx, id); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}

func ids(t *testing.T, ix capindex.Index, p string) string {
	t.Helper()
	rs, err := ix.ListByPrincipal(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return idsOf(rs)
}

func idsOf(rs []capindex.Record) string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.CapabilityID)
	}
	return fmt.Sprint(out)
}
