package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/audit"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAuditTrail runs a flow and reads the audit events it produced: one
// per decision, each with purpose and policy revision, in a hash chain
// that verifies; then one tampered event breaks it.
func TestAuditTrail(t *testing.T) {
	var buf lockedBuffer
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.AuditWriter = &buf })
	c := h.aliceQ1()
	h.invokeFirst("alice-dev-key", c)
	h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("update_document", c.ID, map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}))
	child, _ := h.attenuate("alice-dev-key", map[string]any{"capabilityId": c.ID, "constraints": map[string]any{"operations": []string{"retrieve"}}})
	h.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": c.ID})
	log := buf.String()
	for _, want := range []string{
		`"event":"capability.issue"`, `"event":"capability.invoke"`, `"event":"capability.attenuate"`,
		`"event":"capability.revoke"`, `"decision":"operation_not_permitted"`, `"decision":"allowed"`,
		`"purpose":"Summarize quarterly reports"`, `"policy_revision":"`, child.ID,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("audit trail lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "reports/q1-financial") {
		t.Error("the audit trail names a real resource id; it must name handles only")
	}
	rep, err := audit.Verify(strings.NewReader(log))
	if err != nil || rep.Events < 5 {
		t.Fatalf("verify: %v (%d events)", err, rep.Events)
	}
	tampered := strings.Replace(log, `"decision":"operation_not_permitted"`, `"decision":"allowed"`, 1)
	if _, err := audit.Verify(strings.NewReader(tampered)); err == nil {
		t.Fatal("a tampered audit trail verified")
	}
}

// TestMetrics scrapes /metrics after a flow.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Registry = reg })
	c := h.aliceQ1()
	h.invokeFirst("alice-dev-key", c)
	h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("update_document", c.ID, map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}))
	h.post("documents", "", sendBody)
	wants := []string{
		`capgate_requests_total{agent="documents",method="a2a/skill/invoke",outcome="ok"} 1`,
		`capgate_requests_total{agent="documents",method="a2a/skill/invoke",outcome="denied"} 1`,
		`capgate_decisions_total{reason="operation_not_permitted"} 1`,
		`capgate_requests_total{agent="documents",method="other",outcome="unauthenticated"} 1`,
		`capgate_policy_revision_info{revision="`,
		`capgate_upstream_duration_seconds_count{agent="documents"}`,
	}
	// A forwarded call is counted when the proxy returns, just after the
	// caller has its answer: poll rather than scrape once.
	var body string
	waitFor(t, func() bool {
		body = scrape(t, h.srv.URL+"/metrics")
		return strings.Contains(body, wants[0])
	})
	for _, want := range wants {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
