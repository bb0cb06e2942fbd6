package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/revocationtest"
)

// TestRefusedFloodBounded: a flood of refused calls from one address
// writes at most the throttle's budget of admin.refused events, then one
// summary counting the rest when the window ends; the metric counts every
// call, nothing was revoked, and the chain verifies.
func TestRefusedFloodBounded(t *testing.T) {
	an, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey("bob"), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := revocationtest.NewClock()
	var trail bytes.Buffer
	log := slog.New(audit.NewHandler(&trail, audit.Options{Chain: "admin-flood", Now: clk.Now}))
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := throttle.New(throttle.Options{Audit: log, Events: 3, Window: time.Minute, Now: clk.Now})
	mem := revocation.NewMemory(revocation.MemoryOptions{Now: clk.Now})
	defer mem.Close()
	api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}, MaxTTL: time.Hour},
		admin.Deps{Authenticator: an, Revocations: mem, Audit: log, Refusals: th,
			Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: clk.Now, Metrics: m}})
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	for range 20 {
		if status, _ := send(t, srv, "", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_1"}`); status != http.StatusUnauthorized {
			t.Fatalf("status %d", status)
		}
	}
	for range 5 {
		if status, _ := send(t, srv, "bob", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_1"}`); status != http.StatusForbidden {
			t.Fatalf("status %d", status)
		}
	}
	clk.Advance(time.Minute)
	th.Sweep(context.Background())

	var refused, summaries []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(trail.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev["decision"] == throttle.Decision {
			summaries = append(summaries, ev)
		} else {
			refused = append(refused, ev)
		}
	}
	if len(refused) != 3 || refused[0]["client"] != "127.0.0.1" || refused[0]["event"] != admin.EventAdminRefused {
		t.Errorf("refused events: %v", refused)
	}
	if len(summaries) != 1 || summaries[0]["suppressed"] != float64(22) || summaries[0]["event"] != admin.EventAdminRefused {
		t.Errorf("summaries: %v", summaries)
	}
	if rep, err := audit.Verify(bytes.NewReader(trail.Bytes())); err != nil || rep.Events != 4 {
		t.Errorf("the trail verifies %d events: %v", rep.Events, err)
	}
	if res, err := mem.Check(context.Background(), revocation.Query{IDs: []string{"rev_1"}}); err != nil || res.Revoked {
		t.Errorf("a refused call revoked: %v %v", res.Revoked, err)
	}
	scraped := scrapeMetrics(t, m)
	for _, want := range []string{`capgate_refused_calls_total{status="401",surface="admin"} 20`,
		`capgate_refused_calls_total{status="403",surface="admin"} 5`} {
		if !strings.Contains(scraped, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func scrapeMetrics(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return string(b)
}
