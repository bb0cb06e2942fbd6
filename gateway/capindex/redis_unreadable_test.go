package capindex_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestRedisListsNameUnreadableRecords: a live capability whose record
// cannot be read (garbled bytes, a key of another type, another
// capability's record) or is not there at all (deleted, evicted) is named
// by every listing that covers it, next to the readable records, never
// skipped silently; one whose record is gone while its listed expiry is
// within the clock-skew margin of now, or past, expired: it is not named.
func TestRedisListsNameUnreadableRecords(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	now := time.Now()
	ix := capindex.NewRedis(srv.Client, "u:", time.Second, func() time.Time { return now })
	for i, id := range []string{"cap_ok", "cap_garbled", "cap_hash", "cap_swapped", "cap_gone", "cap_lapsing", "cap_expired"} {
		if err := ix.Put(ctx, capindex.Record{
			CapabilityID: id, Token: capindextest.Token(t, id), Principal: "user:a", Holder: "agent:s",
			Agent: "documents", Grant: "documents:read",
			IssuedAt: now.Add(time.Duration(i) * time.Second), Expires: now.Add(time.Hour),
		}); err != nil {
			t.Fatal(err)
		}
	}
	spoilRecords(ctx, t, srv.Client, now)
	unreadable := []string{"cap_garbled", "cap_gone", "cap_hash", "cap_swapped"}
	for _, tc := range []struct {
		name string
		list func() ([]capindex.Record, error)
		want string
	}{
		{"by principal", func() ([]capindex.Record, error) { return ix.ListByPrincipal(ctx, "user:a") }, "[cap_ok]"},
		{"by holder", func() ([]capindex.Record, error) { return ix.ListByPrincipal(ctx, "agent:s") }, "[cap_ok]"},
		{"all", func() ([]capindex.Record, error) { return ix.List(ctx, capindex.Filter{}) }, "[cap_ok]"},
		{"filtered by principal", func() ([]capindex.Record, error) { return ix.List(ctx, capindex.Filter{Principal: "user:a"}) }, "[cap_ok]"},
		// An unreadable record cannot be matched against the agent.
		{"filtered by agent", func() ([]capindex.Record, error) { return ix.List(ctx, capindex.Filter{Agent: "calendar"}) }, "[]"},
	} {
		recs, err := tc.list()
		if !errors.Is(err, capindex.ErrUnreadable) {
			t.Fatalf("%s: err = %v, want ErrUnreadable", tc.name, err)
		}
		if got := capindex.UnreadableIDs(err); !slices.Equal(got, unreadable) {
			t.Errorf("%s: unreadable ids %v, want %v", tc.name, got, unreadable)
		}
		var u *capindex.UnreadableError
		if !errors.As(err, &u) || !slices.Equal(u.Missing, []string{"cap_gone"}) {
			t.Errorf("%s: missing ids of %v, want [cap_gone]", tc.name, err)
		}
		if !strings.Contains(err.Error(), "4 unreadable records: cap_garbled, cap_gone, cap_hash, cap_swapped (1 missing: cap_gone)") {
			t.Errorf("%s: error %q does not name the ids", tc.name, err)
		}
		if got := ids(recs); got != tc.want {
			t.Errorf("%s: readable records %s, want %s", tc.name, got, tc.want)
		}
	}
	if recs, err := ix.ListByPrincipal(ctx, "user:b"); err != nil || len(recs) != 0 {
		t.Errorf("another principal's listing: %v, %v", recs, err)
	}
}

// spoilRecords garbles cap_garbled, puts cap_ok's record under
// cap_swapped, makes cap_hash a hash and deletes the records of cap_gone,
// cap_lapsing and cap_expired, after moving the listed expiries of the
// last two to within the missing margin of now and to the past: they
// expired on time, as a listing replica whose clock runs behind sees it.
func spoilRecords(ctx context.Context, t *testing.T, c redis.UniversalClient, now time.Time) {
	t.Helper()
	ok, err := c.Get(ctx, "u:cap:cap_ok").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	keep := redis.SetArgs{KeepTTL: true}
	cmds := []redis.Cmder{
		c.SetArgs(ctx, "u:cap:cap_garbled", "\x02garbage from another version", keep),
		c.SetArgs(ctx, "u:cap:cap_swapped", ok, keep),
		c.Del(ctx, "u:cap:cap_hash", "u:cap:cap_gone", "u:cap:cap_lapsing", "u:cap:cap_expired"),
		c.HSet(ctx, "u:cap:cap_hash", "f", "v"),
	}
	for _, set := range []string{"u:capsby:user:a", "u:capsby:agent:s", "u:capsall"} {
		cmds = append(cmds,
			c.ZAddXX(ctx, set, redis.Z{Member: "cap_lapsing", Score: float64(now.Add(capindex.MissingMargin / 2).UnixMilli())}),
			c.ZAddXX(ctx, set, redis.Z{Member: "cap_expired", Score: float64(now.Add(-time.Minute).UnixMilli())}))
	}
	for _, cmd := range cmds {
		if cmd.Err() != nil {
			t.Fatal(cmd.Err())
		}
	}
}

// TestRedisListUnavailable: a listing against a dead Redis is
// ErrUnavailable with no records, never a list of unreadable ones.
func TestRedisListUnavailable(t *testing.T) {
	srv := redistest.Start(t)
	ix := capindex.NewRedis(srv.Client, "d:", 200*time.Millisecond, time.Now)
	srv.Kill()
	recs, err := ix.ListByPrincipal(context.Background(), "user:a")
	if !errors.Is(err, capindex.ErrUnavailable) || errors.Is(err, capindex.ErrUnreadable) || recs != nil {
		t.Fatalf("ListByPrincipal on a dead Redis = %v, %v; want ErrUnavailable only", recs, err)
	}
}

func ids(recs []capindex.Record) string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.CapabilityID)
	}
	return "[" + strings.Join(out, " ") + "]"
}
