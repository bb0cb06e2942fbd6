package capindextest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
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
			CapabilityID: id, Token: Token(t, id), Principal: principal, Holder: holder,
			Agent: "documents", Grant: "documents:read", IssuedAt: now,
			Expires: now.Add(exp), DisplayNames: []string{"Q1"},
		}
	}
	t.Run("put then get", func(t *testing.T) {
		ix := newIndex(t)
		want := rec("cap_a", "user:a", "user:a", time.Hour)
		want.ParentID = "cap_p"
		want.DisplayNames = append(want.DisplayNames, "", "Q0 Sales Report")
		if err := ix.Put(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := ix.Get(ctx, "cap_a")
		if err != nil {
			t.Fatal(err)
		}
		if !Equal(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("refuses invalid records", func(t *testing.T) { refusesInvalid(t, newIndex(t), rec("cap_i", "user:a", "user:a", time.Hour)) })
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

// refusesInvalid checks that Put refuses each record no index keeps.
func refusesInvalid(t *testing.T, ix capindex.Index, valid capindex.Record) {
	tests := []struct {
		name   string
		change func(r *capindex.Record)
	}{
		{"no id", func(r *capindex.Record) { r.CapabilityID = "" }},
		{"principal not UTF-8", func(r *capindex.Record) { r.Principal = "user:\xff" }},
		{"display name not UTF-8", func(r *capindex.Record) { r.DisplayNames = []string{"Q1 \xff"} }},
		{"grant too long", func(r *capindex.Record) { r.Grant = strings.Repeat("g", 1<<16) }},
	}
	for _, tc := range tests {
		r := valid
		r.DisplayNames = slices.Clone(valid.DisplayNames)
		tc.change(&r)
		if err := ix.Put(context.Background(), r); !errors.Is(err, capindex.ErrInvalidRecord) {
			t.Errorf("%s: Put() error = %v, want ErrInvalidRecord", tc.name, err)
		}
	}
	if _, err := ix.Get(context.Background(), valid.CapabilityID); !errors.Is(err, capindex.ErrNotFound) {
		t.Errorf("an invalid record was stored: %v", err)
	}
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

// Token returns a packed token that names id and handles: a well-formed
// compact JWS, though not a verifiable one, for an index never verifies.
func Token(t testing.TB, id string, handles ...string) captoken.Packed {
	t.Helper()
	rhs, err := json.Marshal(handles)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	p, err := captoken.Pack(enc.EncodeToString([]byte(`{"alg":"EdDSA","typ":"cap+jwt"}`)) + "." +
		enc.EncodeToString([]byte(`{"cid":"`+id+`","rhs":`+string(rhs)+`}`)) + "." + enc.EncodeToString([]byte("sig of "+id)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Equal reports whether two records are equal, their times to the
// millisecond an index keeps.
func Equal(a, b capindex.Record) bool {
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	return a.CapabilityID == b.CapabilityID && a.Token == b.Token && a.Principal == b.Principal &&
		a.Holder == b.Holder && a.Agent == b.Agent && a.Grant == b.Grant && a.ParentID == b.ParentID &&
		slices.Equal(a.DisplayNames, b.DisplayNames) && ms(a.IssuedAt) == ms(b.IssuedAt) && ms(a.Expires) == ms(b.Expires)
}
