package freeze_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// newMetrics returns metrics on a fresh registry.
func newMetrics(t *testing.T) *metrics.Metrics {
	t.Helper()
	m, err := metrics.New(prometheus.NewRegistry(), metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scraped reads the freeze series of m's exposition.
func scraped(m *metrics.Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var out []string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, "capgate_frozen{") || strings.HasPrefix(l, "capgate_freeze_actions_total{") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetrics: the gauge follows what is frozen and the counter every
// freeze and unfreeze made here; a refused change counts nothing.
func TestMetrics(t *testing.T) {
	m := newMetrics(t)
	c := &fixedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := freeze.New(context.Background(), freeze.Options{Runtime: platform.Runtime{Now: c.now, Metrics: m}})
	defer s.Close()
	ctx := context.Background()
	for _, op := range []func() (freeze.Entry, error){
		func() (freeze.Entry, error) { return s.Freeze(ctx, freeze.Agent, "billing", "alice", "leak") },
		func() (freeze.Entry, error) { return s.Freeze(ctx, freeze.Agent, "notes", "alice", "leak") },
		func() (freeze.Entry, error) {
			return s.Freeze(ctx, freeze.Principal, "user:bob", "alice", "stolen laptop")
		},
		func() (freeze.Entry, error) { return s.Unfreeze(ctx, freeze.Agent, "notes", "alice", "fixed") },
		func() (freeze.Entry, error) { return s.Unfreeze(ctx, freeze.Agent, "never", "alice", "x") },     // not frozen
		func() (freeze.Entry, error) { return s.Freeze(ctx, freeze.Principal, "user:eve", "alice", "") }, // no reason
	} {
		c.t = c.t.Add(time.Second)
		_, _ = op()
	}
	want := strings.Join([]string{
		`capgate_freeze_actions_total{action="freeze",kind="agent"} 2`,
		`capgate_freeze_actions_total{action="freeze",kind="principal"} 1`,
		`capgate_freeze_actions_total{action="unfreeze",kind="agent"} 1`,
		`capgate_freeze_actions_total{action="unfreeze",kind="principal"} 0`,
		`capgate_frozen{kind="agent"} 1`,
		`capgate_frozen{kind="principal"} 1`,
	}, "\n")
	if got := scraped(m); got != want {
		t.Errorf("scrape:\n%s\nwant:\n%s", got, want)
	}
}

// TestMetricsReplicas: another replica's gauge follows a freeze and an
// unfreeze made elsewhere, while its counter counts none of them.
func TestMetricsReplicas(t *testing.T) {
	srv := redistest.Start(t)
	a := replica(t, srv)
	m := newMetrics(t)
	b := freeze.New(context.Background(), freeze.Options{
		Runtime: platform.Runtime{Metrics: m, Redis: &platform.Redis{Client: srv.NewClient(&redis.Options{MaxRetries: -1}),
			Prefix: "t:", Timeout: time.Second}},
		MaxStaleness: staleness,
	})
	t.Cleanup(func() { _ = b.Close() })
	ctx := context.Background()
	if _, err := a.Freeze(ctx, freeze.Principal, "user:bob", "alice", "stolen laptop"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "replica b's gauge counts the freeze", func() bool {
		return strings.Contains(scraped(m), `capgate_frozen{kind="principal"} 1`)
	})
	if _, err := a.Unfreeze(ctx, freeze.Principal, "user:bob", "alice", "found"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "replica b's gauge drops the unfreeze", func() bool {
		return strings.Contains(scraped(m), `capgate_frozen{kind="principal"} 0`)
	})
	if got := scraped(m); !strings.Contains(got, `capgate_freeze_actions_total{action="freeze",kind="principal"} 0`) {
		t.Errorf("replica b counted another's action:\n%s", got)
	}
}
