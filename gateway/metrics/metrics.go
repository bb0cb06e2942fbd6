package metrics

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "capgate"

// Histogram buckets, in seconds. The decision path takes microseconds to
// milliseconds (a Redis round trip at worst); the upstream hop takes
// milliseconds to a minute for a long agent task.
var (
	decisionBuckets = []float64{5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}
	upstreamBuckets = []float64{5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
)

// Metrics is capgate's set of collectors. Its methods are safe for
// concurrent use and do nothing on a nil receiver.
type Metrics struct {
	agents, methods, outcomes, reasons, steps, components labelSet

	requests       *prometheus.CounterVec
	decisions      *prometheus.CounterVec
	stepDur        *prometheus.HistogramVec
	upstreamDur    *prometheus.HistogramVec
	redisErrors    *prometheus.CounterVec
	revision       *revisionCollector
	reloads        prometheus.Counter
	reloadFailures prometheus.Counter
	shadow         prometheus.Counter
	a2eSessions    prometheus.Gauge
	auditDropped   prometheus.Counter
	unreadable     prometheus.Counter
	rateLimits     *prometheus.CounterVec
	cardRefusals   *prometheus.CounterVec
	pushes         *prometheus.CounterVec
	refused        *prometheus.CounterVec
	frozen         *prometheus.GaugeVec
	freezeActions  *prometheus.CounterVec

	handler http.Handler
}

// New validates opts and registers every collector on reg.
func New(reg *prometheus.Registry, opts Options) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("%w: nil registry", ErrInvalidOptions)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m := &Metrics{
		agents:     newLabelSet(opts.Agents, nil),
		methods:    newLabelSet(opts.Methods, nil),
		outcomes:   newLabelSet(opts.Outcomes, defaultOutcomes()),
		reasons:    newLabelSet(opts.Reasons, defaultReasons()),
		steps:      newLabelSet([]string{StepAuthenticate, StepDecide, StepVerify, StepRevocation, StepTotal}, nil),
		components: newLabelSet(opts.Components, defaultComponents()),
		revision:   newRevisionCollector(),
	}
	collectors := m.build()
	if opts.RevocationCache != nil {
		now := opts.Now
		if now == nil {
			now = time.Now
		}
		collectors = append(collectors, newRevocationCollector(opts.RevocationCache, now))
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRegister, err)
		}
	}
	m.initLabels()
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
	})
	return m, nil
}

// build creates the collectors with fixed label names.
func (m *Metrics) build() []prometheus.Collector {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help})
	}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "requests_total",
		Help: "Requests handled, by agent, method and outcome."}, []string{"agent", "method", "outcome"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "decisions_total",
		Help: `Capability decisions, by reason word ("allowed" when allowed).`}, []string{"reason"})
	m.stepDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "decision_duration_seconds",
		Help: "Time spent in each step of the decision path.", Buckets: decisionBuckets}, []string{"step"})
	m.upstreamDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "upstream_duration_seconds",
		Help: "Time spent on the upstream hop, by agent.", Buckets: upstreamBuckets}, []string{"agent"})
	m.redisErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "redis_errors_total",
		Help: "Failed Redis calls, by component."}, []string{"component"})
	m.reloads = counter("policy_reloads_total", "Policy reload attempts.")
	m.reloadFailures = counter("policy_reload_failures_total", "Policy reload attempts that failed; the last good policy stayed in force.")
	m.shadow = counter("policy_shadow_disagreements_total",
		"Capability requests the shadow (candidate) policy decided otherwise than the enforced one.")
	m.a2eSessions = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "a2e_sessions_open",
		Help: "Open A2E sessions."})
	m.auditDropped = counter("audit_events_dropped_total", "Audit events that did not reach the audit stream (the audit file still has them).")
	m.unreadable = counter("capindex_unreadable_records_total",
		"Capability index records that listings could not read and named instead of returning; such a capability may be live.")
	m.rateLimits = newRateLimitChecks()
	m.cardRefusals = newCardRefusals()
	m.pushes = newPushes()
	m.refused = newRefusedCalls()
	m.frozen, m.freezeActions = newFrozen(), newFreezeActions()
	return []prometheus.Collector{m.requests, m.decisions, m.stepDur, m.upstreamDur, m.redisErrors,
		m.revision, m.reloads, m.reloadFailures, m.shadow, m.a2eSessions, m.auditDropped, m.unreadable, m.rateLimits,
		m.cardRefusals, m.pushes, m.refused, m.frozen, m.freezeActions}
}

// initLabels creates the small fixed series at zero, so that rates and
// alerts see them before the first event.
func (m *Metrics) initLabels() {
	for r := range m.reasons {
		m.decisions.WithLabelValues(r)
	}
	for s := range m.steps {
		m.stepDur.WithLabelValues(s)
	}
	for c := range m.components {
		m.redisErrors.WithLabelValues(c)
	}
	m.initRateLimitLabels()
	m.initRefusedLabels()
	m.initFreezeLabels()
}

// Handler serves the registry in the Prometheus exposition formats. It
// serves every collector registered on the registry, not only these.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return m.handler
}
