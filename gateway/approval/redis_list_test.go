package approval_test

import (
	"context"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestRedisListTrimsGoneRecords: a listing on a real Redis skips the ids
// whose record is gone (expired, or deleted) and takes them off the list,
// so that later listings do not read them again.
func TestRedisListTrimsGoneRecords(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.NewClient(nil)
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	d := approval.NewDesk(approval.NewRedis(c, "capgate:", time.Second, clk.Now), approval.Options{Now: clk.Now})
	var ids []string
	for _, who := range []string{"user:a@example.com", "user:b@example.com", "user:c@example.com"} {
		r := sample()
		r.Principal = who
		got, err := d.Create(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got.ID)
	}
	if err := c.Del(ctx, "capgate:apr:"+ids[0], "capgate:apr:"+ids[2]).Err(); err != nil {
		t.Fatal(err)
	}
	list, err := d.List(ctx, approval.Filter{})
	if err != nil || len(list) != 1 || list[0].ID != ids[1] {
		t.Fatalf("List = %d requests, %v; want only %s", len(list), err, ids[1])
	}
	if n, err := c.ZCard(ctx, "capgate:aprs").Result(); err != nil || n != 1 {
		t.Fatalf("the list holds %d ids after the listing (%v), want 1", n, err)
	}
}
