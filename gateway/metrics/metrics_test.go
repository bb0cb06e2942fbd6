package metrics

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newTestMetrics(t *testing.T, opts Options) (*Metrics, *prometheus.Registry) {
	t.Helper()
	if opts.Agents == nil {
		opts.Agents = []string{"documents", "summarizer", "lab"}
	}
	if opts.Methods == nil {
		opts.Methods = []string{"a2a/skill/invoke", "a2a/capabilities/request", "message/send"}
	}
	reg := prometheus.NewRegistry()
	m, err := New(reg, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m, reg
}

// scrape fetches the handler's text exposition.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s: %s", resp.Status, body)
	}
	return string(body)
}

func TestScrapeGolden(t *testing.T) {
	m, _ := newTestMetrics(t, Options{
		RevocationCache: func() RevocationCacheStats {
			return RevocationCacheStats{Size: 42, SyncedAt: testNow.Add(-1500 * time.Millisecond)}
		},
		Now: func() time.Time { return testNow },
	})
	m.ObserveRequest("documents", "a2a/skill/invoke", "ok")
	m.ObserveRequest("documents", "a2a/skill/invoke", "denied")
	m.ObserveRequest("evil-agent", "x/unknown", "weird")
	m.ObserveDecision(Allowed)
	m.ObserveDecision("capability_revoked")
	m.ObserveDecision("made_up")
	m.ObserveStep(StepVerify, 30*time.Microsecond)
	m.ObserveStep(StepTotal, 2*time.Millisecond)
	m.ObserveUpstream("documents", 120*time.Millisecond)
	m.RedisError("revocation")
	m.PolicyReloaded("rev-1", nil)
	m.PolicyReloaded("rev-2", errors.New("bad policy"))
	m.ShadowDisagreement()
	m.SetA2ESessions(3)
	m.AuditEventDropped()
	m.CapindexUnreadable(2)
	m.ObserveCardRefused("documents", CardUnsigned)
	m.ObserveCardRefused("evil-agent", "made_up")
	m.ObserveRefused(SurfaceAdmin, 401)
	m.ObserveRefused(SurfaceConsole, 403)
	m.ObserveRefused("elsewhere", 500)
	m.SetFrozen(2, 1)
	m.ObserveFreezeAction(FrozenAgent, ActionFreeze)
	m.ObserveFreezeAction(FrozenAgent, ActionFreeze)
	m.ObserveFreezeAction(FrozenAgent, ActionUnfreeze)
	m.ObserveFreezeAction(FrozenPrincipal, ActionFreeze)
	m.ObserveFreezeAction("team", "thaw")
	got := scrape(t, m)

	path := filepath.Join("testdata", "scrape.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("scrape differs from %s:\n%s", path, got)
	}
}

func TestCounters(t *testing.T) {
	m, reg := newTestMetrics(t, Options{})
	for range 3 {
		m.ObserveRequest("documents", "message/send", "ok")
	}
	m.ObserveRequest("documents", "tools/list", "ok")
	m.RedisError("audit")
	m.RedisError("somewhere")
	m.AuditEventDropped()
	m.AuditEventDropped()
	m.CapindexUnreadable(3)
	m.CapindexUnreadable(0)
	m.CapindexUnreadable(-1)
	m.ObserveCardRefused("documents", CardRefused)
	m.ObserveCardRefused("documents", CardRefused)
	m.ObserveCardRefused("nowhere", CardUnsigned)
	tests := []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"known labels", m.requests.WithLabelValues("documents", "message/send", "ok"), 3},
		{"unknown method", m.requests.WithLabelValues("documents", Other, "ok"), 1},
		{"redis audit", m.redisErrors.WithLabelValues("audit"), 1},
		{"redis other", m.redisErrors.WithLabelValues(Other), 1},
		{"audit dropped", m.auditDropped, 2},
		{"unreadable index records", m.unreadable, 3},
		{"card refused", m.cardRefusals.WithLabelValues("documents", CardRefused), 2},
		{"card unsigned, unknown agent", m.cardRefusals.WithLabelValues(Other, CardUnsigned), 1},
	}
	for _, tt := range tests {
		if got := testutil.ToFloat64(tt.c); got != tt.want {
			t.Errorf("%s = %v; want %v", tt.name, got, tt.want)
		}
	}
	expected := `
# HELP capgate_audit_events_dropped_total Audit events that did not reach the audit stream (the audit file still has them).
# TYPE capgate_audit_events_dropped_total counter
capgate_audit_events_dropped_total 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expected), "capgate_audit_events_dropped_total"); err != nil {
		t.Error(err)
	}
}

// TestCardinalityBound sends many caller-chosen names: the series count
// must stay within the fixed sets plus "other".
func TestCardinalityBound(t *testing.T) {
	m, _ := newTestMetrics(t, Options{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 2500 {
				s := fmt.Sprintf("%d-%d", w, i)
				m.ObserveRequest("agent-"+s, "method-"+s, "outcome-"+s)
				m.ObserveDecision("reason-" + s)
				m.ObserveStep("step-"+s, time.Microsecond)
				m.ObserveUpstream("agent-"+s, time.Millisecond)
				m.RedisError("component-" + s)
			}
		})
	}
	wg.Wait()
	tests := []struct {
		name string
		c    prometheus.Collector
		max  int
	}{
		{"requests", m.requests, 4 * 4 * (len(defaultOutcomes()) + 1)},
		{"decisions", m.decisions, len(defaultReasons()) + 1},
		{"steps", m.stepDur, 6},
		{"upstream", m.upstreamDur, 4},
		{"redis", m.redisErrors, len(defaultComponents()) + 1},
	}
	for _, tt := range tests {
		if n := testutil.CollectAndCount(tt.c); n > tt.max {
			t.Errorf("%s: %d series; want at most %d", tt.name, n, tt.max)
		}
	}
	if n := testutil.ToFloat64(m.requests.WithLabelValues(Other, Other, Other)); n != 10000 {
		t.Errorf("other/other/other = %v; want 10000", n)
	}
}

func TestPolicyRevision(t *testing.T) {
	m, reg := newTestMetrics(t, Options{})
	if n, _ := testutil.GatherAndCount(reg, "capgate_policy_revision_info"); n != 0 {
		t.Fatalf("revision reported before any policy: %d series", n)
	}
	m.SetPolicyRevision("rev-1")
	m.PolicyReloaded("rev-2", nil)
	m.PolicyReloaded("rev-3", errors.New("invalid"))
	m.PolicyReloaded(strings.Repeat("r", 200)+"\xff", nil)
	m.PolicyReloaded("rev-4", nil)
	expected := `
# HELP capgate_policy_revision_info The policy revision in force (value 1).
# TYPE capgate_policy_revision_info gauge
capgate_policy_revision_info{revision="rev-4"} 1
# HELP capgate_policy_reloads_total Policy reload attempts.
# TYPE capgate_policy_reloads_total counter
capgate_policy_reloads_total 4
# HELP capgate_policy_reload_failures_total Policy reload attempts that failed; the last good policy stayed in force.
# TYPE capgate_policy_reload_failures_total counter
capgate_policy_reload_failures_total 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expected),
		"capgate_policy_revision_info", "capgate_policy_reloads_total", "capgate_policy_reload_failures_total"); err != nil {
		t.Error(err)
	}
	m.PolicyReloaded(strings.Repeat("r", 200)+"\xff", nil)
	if got := m.revision.rev.Load(); len(*got) > maxRevisionBytes {
		t.Errorf("revision label %d bytes; want at most %d", len(*got), maxRevisionBytes)
	}
}

func TestRevocationCacheGauges(t *testing.T) {
	now := testNow
	tests := []struct {
		name     string
		stats    RevocationCacheStats
		wantSize float64
		wantAge  float64
	}{
		{"synced", RevocationCacheStats{Size: 7, SyncedAt: now.Add(-2 * time.Second), UnconfirmedRevokes: 2, MissingAcks: 3, DroppedAcks: 4}, 7, 2},
		{"never synced", RevocationCacheStats{Size: 0}, 0, math.Inf(1)},
		{"clock behind", RevocationCacheStats{Size: 1, SyncedAt: now.Add(time.Second)}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, reg := newTestMetrics(t, Options{
				RevocationCache: func() RevocationCacheStats { return tt.stats },
				Now:             func() time.Time { return now },
			})
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, mf := range mfs {
				if strings.HasPrefix(mf.GetName(), "capgate_revocation_cache_") {
					got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
				}
			}
			if got["capgate_revocation_cache_size"] != tt.wantSize || got["capgate_revocation_cache_age_seconds"] != tt.wantAge {
				t.Fatalf("gauges %v; want size %v, age %v", got, tt.wantSize, tt.wantAge)
			}
			counters := map[string]float64{}
			for _, mf := range mfs {
				if strings.HasPrefix(mf.GetName(), "capgate_revocation_") && mf.GetMetric()[0].GetCounter() != nil {
					counters[strings.TrimPrefix(mf.GetName(), "capgate_revocation_")] = mf.GetMetric()[0].GetCounter().GetValue()
				}
			}
			for name, want := range map[string]uint64{"unconfirmed_total": tt.stats.UnconfirmedRevokes,
				"missing_acks_total": tt.stats.MissingAcks, "dropped_acks_total": tt.stats.DroppedAcks} {
				if counters[name] != float64(want) {
					t.Errorf("capgate_revocation_%s = %v, want %d", name, counters[name], want)
				}
			}
		})
	}
	_, reg := newTestMetrics(t, Options{})
	if n, _ := testutil.GatherAndCount(reg, "capgate_revocation_cache_size"); n != 0 {
		t.Fatalf("cache gauges registered without a stats function")
	}
}

func TestA2ESessions(t *testing.T) {
	m, _ := newTestMetrics(t, Options{})
	m.SetA2ESessions(5)
	m.AddA2ESessions(2)
	m.AddA2ESessions(-4)
	if got := testutil.ToFloat64(m.a2eSessions); got != 3 {
		t.Fatalf("a2e_sessions_open = %v; want 3", got)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		reg     *prometheus.Registry
		opts    Options
		wantErr error
	}{
		{"ok", prometheus.NewRegistry(), Options{Agents: []string{"documents"}}, nil},
		{"nil registry", nil, Options{}, ErrInvalidOptions},
		{"empty agent", prometheus.NewRegistry(), Options{Agents: []string{""}}, ErrInvalidOptions},
		{"invalid UTF-8 method", prometheus.NewRegistry(), Options{Methods: []string{"\xff"}}, ErrInvalidOptions},
		{"long outcome", prometheus.NewRegistry(), Options{Outcomes: []string{strings.Repeat("o", 200)}}, ErrInvalidOptions},
		{"too many agents", prometheus.NewRegistry(), Options{Agents: manyNames(maxSetSize + 1)}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.reg, tt.opts); !errors.Is(err, tt.wantErr) {
				t.Fatalf("New = %v; want %v", err, tt.wantErr)
			}
		})
	}
	reg := prometheus.NewRegistry()
	if _, err := New(reg, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg, Options{}); !errors.Is(err, ErrRegister) {
		t.Fatalf("second New on one registry = %v; want ErrRegister", err)
	}
}

func manyNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("a%d", i)
	}
	return out
}

func TestNilMetricsIsANoOp(t *testing.T) {
	var m *Metrics
	m.ObserveRequest("a", "b", "c")
	m.ObserveDecision(Allowed)
	m.ObserveStep(StepTotal, time.Second)
	m.ObserveUpstream("a", time.Second)
	m.RedisError("audit")
	m.PolicyReloaded("r", nil)
	m.SetPolicyRevision("r")
	m.SetA2ESessions(1)
	m.AddA2ESessions(1)
	m.AuditEventDropped()
	m.CapindexUnreadable(1)
	m.ObserveCardRefused("a", CardUnsigned)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("nil Metrics handler status %d", rec.Code)
	}
}

func BenchmarkObserveRequest(b *testing.B) {
	reg := prometheus.NewRegistry()
	m, _ := New(reg, Options{Agents: []string{"documents"}, Methods: []string{"a2a/skill/invoke"}})
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRequest("documents", "a2a/skill/invoke", "ok")
		m.ObserveDecision(Allowed)
		m.ObserveStep(StepTotal, 40*time.Microsecond)
	}
}

// TestLint runs Prometheus's own naming and help-text checks.
func TestLint(t *testing.T) {
	_, reg := newTestMetrics(t, Options{RevocationCache: func() RevocationCacheStats { return RevocationCacheStats{} }})
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
