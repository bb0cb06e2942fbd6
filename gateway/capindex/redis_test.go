package capindex_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
	"github.com/capgate/capgate/revocation/redistest"
)

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	capindextest.Run(t, func(t *testing.T) capindex.Index {
		n++
		return capindex.NewRedis(srv.Client, "t"+string(rune('a'+n))+":", time.Second, time.Now)
	})
}

func TestRedisCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	client := cl.NewClient(nil)
	n := 0
	capindextest.Run(t, func(t *testing.T) capindex.Index {
		n++
		return capindex.NewRedis(client, "c"+string(rune('a'+n))+":", time.Second, time.Now)
	})
}

// TestRedisFailsClosed checks that an unreachable or garbled index is an
// error, never "not found" or a record.
func TestRedisFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	ix := capindex.NewRedis(srv.Client, "f:", 200*time.Millisecond, time.Now)
	ctx := context.Background()
	if err := srv.Client.Set(ctx, "f:cap:cap_x", "{not json", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Get(ctx, "cap_x"); !errors.Is(err, capindex.ErrUnavailable) {
		t.Fatalf("garbled record: err = %v, want ErrUnavailable", err)
	}
	srv.Kill()
	start := time.Now()
	if _, err := ix.Get(ctx, "cap_y"); !errors.Is(err, capindex.ErrUnavailable) {
		t.Fatalf("dead Redis: err = %v, want ErrUnavailable", err)
	}
	t.Logf("Get against a dead Redis returned in %v", time.Since(start))
	if err := ix.Put(ctx, capindex.Record{CapabilityID: "cap_z", Expires: time.Now().Add(time.Hour)}); !errors.Is(err, capindex.ErrUnavailable) {
		t.Fatalf("Put on dead Redis: %v", err)
	}
}

// TestRedisReadsJSONForm checks that a record written in the JSON form of
// earlier versions is still read, by Get and by List.
func TestRedisReadsJSONForm(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := codecRecord(t)
	now := r.IssuedAt
	ix := capindex.NewRedis(srv.Client, "j:", time.Second, func() time.Time { return now })
	if err := ix.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.Set(ctx, "j:cap:"+r.CapabilityID, jsonForm(t, r), time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Get(ctx, r.CapabilityID)
	if err != nil || !capindextest.Equal(got, r) {
		t.Fatalf("Get() = %+v, %v, want %+v", got, err, r)
	}
	if all, err := ix.List(ctx, capindex.Filter{}); err != nil || len(all) != 1 || !capindextest.Equal(all[0], r) {
		t.Fatalf("List() = %+v, %v", all, err)
	}
}
