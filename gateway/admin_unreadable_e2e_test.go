package gateway_test

import (
	"context"
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
// capability whose record was garbled is still live (its token invokes),
// and GET /admin/capabilities names it under "unreadable" next to the
// readable capability instead of hiding it; the metric counts it.
func TestAdminCapabilitiesNamesUnreadableRecords(t *testing.T) {
	srv := redistest.Start(t)
	reg := prometheus.NewRegistry()
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) {
		o.Index, o.Registry = capindex.NewRedis(srv.Client, "e:", time.Second, time.Now), reg
	})
	admin := h.admin(t)
	readable, garbled := h.aliceQ1(), h.aliceQ1()
	ctx := context.Background()
	if err := srv.Client.SetArgs(ctx, "e:cap:"+garbled.ID, "\x09written by another version", redis.SetArgs{KeepTTL: true}).Err(); err != nil {
		t.Fatal(err)
	}
	if r := h.invokeWithToken("alice-dev-key", garbled); r.Error != nil {
		t.Fatalf("the capability with a garbled record no longer invokes: %+v", r.Error)
	}
	code, out := adminCall(t, admin, "GET", "/admin/capabilities?principal=user:alice@example.com", "admin-dev-key", "")
	body := mustJSON(out)
	if code != 200 || !strings.Contains(body, `"unreadable":["`+garbled.ID+`"]`) || !strings.Contains(body, `"id":"`+readable.ID+`"`) {
		t.Fatalf("list: %d %s, want %s readable and %s unreadable", code, body, readable.ID, garbled.ID)
	}
	if strings.Contains(body, `"id":"`+garbled.ID+`"`) {
		t.Errorf("the garbled record is listed as if read: %s", body)
	}
	if m := scrape(t, h.srv.URL+"/metrics"); !strings.Contains(m, "capgate_capindex_unreadable_records_total 1\n") {
		t.Errorf("/metrics does not count the unreadable record:\n%s", grepLines(m, "capindex"))
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
