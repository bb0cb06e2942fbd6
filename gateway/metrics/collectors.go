package metrics

import (
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// maxRevisionBytes bounds the revision label.
const maxRevisionBytes = 64

// revisionCollector exposes policy_revision_info with one series, for the
// revision in force. The revision is swapped atomically, so a scrape
// never sees two revisions or none once one is set.
type revisionCollector struct {
	desc *prometheus.Desc
	rev  atomic.Pointer[string]
}

func newRevisionCollector() *revisionCollector {
	return &revisionCollector{desc: prometheus.NewDesc(namespace+"_policy_revision_info",
		"The policy revision in force (value 1).", []string{"revision"}, nil)}
}

// set makes rev the revision in force, made valid UTF-8 and clipped.
func (c *revisionCollector) set(rev string) {
	rev = strings.ToValidUTF8(rev, "\uFFFD")
	if len(rev) > maxRevisionBytes {
		rev = strings.ToValidUTF8(rev[:maxRevisionBytes], "")
	}
	c.rev.Store(&rev)
}

// Describe implements prometheus.Collector.
func (c *revisionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *revisionCollector) Collect(ch chan<- prometheus.Metric) {
	if rev := c.rev.Load(); rev != nil {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, *rev)
	}
}

// revocationCollector exposes the revocation cache gauges from one call to
// the stats function per scrape, so size and age agree.
type revocationCollector struct {
	size, age                     *prometheus.Desc
	unconfirmed, missing, dropped *prometheus.Desc
	stats                         func() RevocationCacheStats
	now                           func() time.Time
}

func newRevocationCollector(stats func() RevocationCacheStats, now func() time.Time) *revocationCollector {
	return &revocationCollector{
		size: prometheus.NewDesc(namespace+"_revocation_cache_size",
			"Revocation ids held in the local cache.", nil, nil),
		age: prometheus.NewDesc(namespace+"_revocation_cache_age_seconds",
			"Seconds since the local revocation set was last confirmed complete; +Inf if never.", nil, nil),
		unconfirmed: prometheus.NewDesc(namespace+"_revocation_unconfirmed_total",
			"Revocations made here that waited the whole staleness bound for a replica's acknowledgement.", nil, nil),
		missing: prometheus.NewDesc(namespace+"_revocation_missing_acks_total",
			"Acknowledgements those revocations lacked.", nil, nil),
		dropped: prometheus.NewDesc(namespace+"_revocation_dropped_acks_total",
			"Acknowledgements this replica could not send because its queue was full.", nil, nil),
		stats: stats, now: now,
	}
}

// Describe implements prometheus.Collector.
func (c *revocationCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.size, c.age, c.unconfirmed, c.missing, c.dropped} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *revocationCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	age := math.Inf(1)
	if !st.SyncedAt.IsZero() {
		age = max(c.now().Sub(st.SyncedAt).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(st.Size))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
	ch <- prometheus.MustNewConstMetric(c.unconfirmed, prometheus.CounterValue, float64(st.UnconfirmedRevokes))
	ch <- prometheus.MustNewConstMetric(c.missing, prometheus.CounterValue, float64(st.MissingAcks))
	ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(st.DroppedAcks))
}

var (
	_ prometheus.Collector = (*revisionCollector)(nil)
	_ prometheus.Collector = (*revocationCollector)(nil)
)
