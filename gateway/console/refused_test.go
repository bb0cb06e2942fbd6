package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/metrics"
)

// TestRefusalsAudited: a failed sign-in, a non-operator's sign-in, an
// approver on an admin page and a post without its CSRF token are each a
// console.refused event with the status and the reason, shown on the
// audit page; nothing they asked for was done, and the chain verifies.
func TestRefusalsAudited(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	newBrowser(t, f).signIn("not-a-key")
	newBrowser(t, f).signIn(aliceKey)
	approver := newBrowser(t, f)
	approver.signIn(approverKey)
	approver.get("/console/audit")
	admin := newBrowser(t, f)
	admin.signIn(adminKey)
	admin.post("/console/revoke", url.Values{"id": {f.chain[0].CapabilityID}})
	if got := f.state(t, 0); got != "live" {
		t.Fatalf("a refused post revoked: %s", got)
	}
	_, page := admin.get("/console/audit?event=console.refused")
	for _, want := range []string{"Events 1–4 of 4", "6 events, chain intact",
		"<b>status</b> 401", "not a dev key of this gateway",
		"<b>principal</b> user:alice@example.com", "neither an admin nor an approver",
		"<b>principal</b> user:sec@example.com", "not an admin", "<b>path</b> /console/audit",
		"<b>status</b> 403", "CSRF token missing or wrong", "<b>path</b> /console/revoke"} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit page lacks %q", want)
		}
	}
	file, err := os.Open(f.auditFile)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if rep, err := audit.Verify(file); err != nil || rep.Events != 6 {
		t.Errorf("the trail verifies %d events: %v", rep.Events, err)
	}
	if code, _ := admin.get("/console/audit"); code != http.StatusOK {
		t.Errorf("audit page: %d", code)
	}
}

// TestRefusalFloodBounded: a flood of failed sign-ins from one address
// writes at most the budget of console.refused events and one summary of
// the rest, shown on the audit page; the metric counts each, and the
// chain verifies.
func TestRefusalFloodBounded(t *testing.T) {
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{refusedEvents: 2, metrics: m})
	for range 8 {
		if code, _ := newBrowser(t, f).signIn("not-a-key"); code != http.StatusUnauthorized {
			t.Fatalf("sign-in: %d", code)
		}
	}
	f.refusals.Close(context.Background())
	admin := newBrowser(t, f)
	admin.signIn(adminKey)
	_, page := admin.get("/console/audit?event=console.refused")
	for _, want := range []string{"Events 1–3 of 3", "5 events, chain intact", "<b>suppressed</b> 6",
		"<b>client</b> 127.0.0.1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit page lacks %q", want)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := `capgate_refused_calls_total{status="401",surface="console"} 8`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}
}
