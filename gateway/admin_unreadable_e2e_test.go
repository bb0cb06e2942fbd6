package gateway_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestAdminCapabilitiesNamesUnreadableRecords: on a Redis index, a
// capability whose record was garbled, and one whose record was deleted,
// are still live (their tokens invoke), and GET /admin/capabilities names
// them under "unreadable" next to the readable capability instead of
// hiding them; the metric counts them.
func TestAdminCapabilitiesNamesUnreadableRecords(t *testing.T) {
	srv := redistest.Start(t)
	reg := prometheus.NewRegistry()
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) {
		o.Index, o.Registry = capindex.NewRedis(srv.Client, "e:", time.Second, time.Now), reg
	})
	admin := h.admin(t)
	readable, garbled, deleted := h.aliceQ1(), h.aliceQ1(), h.aliceQ1()
	ctx := context.Background()
	if err := srv.Client.SetArgs(ctx, "e:cap:"+garbled.ID, "\x09written by another version", redis.SetArgs{KeepTTL: true}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client.Del(ctx, "e:cap:"+deleted.ID).Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []issued{garbled, deleted} {
		if r := h.invokeWithToken("alice-dev-key", c); r.Error != nil {
			t.Fatalf("the capability %s no longer invokes: %+v", c.ID, r.Error)
		}
	}
	code, out := adminCall(t, admin, "GET", "/admin/capabilities?principal=user:alice@example.com", "admin-dev-key", "")
	body := mustJSON(out)
	unreadable := []string{garbled.ID, deleted.ID}
	slices.Sort(unreadable)
	if code != 200 || !strings.Contains(body, `"unreadable":["`+strings.Join(unreadable, `","`)+`"]`) || !strings.Contains(body, `"id":"`+readable.ID+`"`) {
		t.Fatalf("list: %d %s, want %s readable and %v unreadable", code, body, readable.ID, unreadable)
	}
	if !strings.Contains(body, `"missing":["`+deleted.ID+`"]`) {
		t.Errorf("list: %s, want the deleted record's id, and only it, under missing", body)
	}
	if strings.Contains(body, `"id":"`+garbled.ID+`"`) {
		t.Errorf("the garbled record is listed as if read: %s", body)
	}
	if m := scrape(t, h.srv.URL+"/metrics"); !strings.Contains(m, "capgate_capindex_unreadable_records_total 2\n") {
		t.Errorf("/metrics does not count the unreadable records:\n%s", grepLines(m, "capindex"))
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
