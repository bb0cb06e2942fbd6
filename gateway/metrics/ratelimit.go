package metrics

import "github.com/prometheus/client_golang/prometheus"

// The results of one rate-limit check.
const (
	RateLimitAllowed     = "allowed"
	RateLimitLimited     = "limited"
	RateLimitUnavailable = "unavailable"
)

// rateLimits and rateResults are the fixed label values of
// rate_limit_checks_total.
var (
	rateLimits  = []string{"issue", "attenuate", "invoke", "live_capabilities"}
	rateResults = []string{RateLimitAllowed, RateLimitLimited, RateLimitUnavailable}
)

func newRateLimitChecks() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "rate_limit_checks_total",
		Help: "Per-principal limit checks, by limit (issue, attenuate, invoke, live_capabilities) and result (allowed, limited, unavailable)."},
		[]string{"limit", "result"})
}

func (m *Metrics) initRateLimitLabels() {
	for _, l := range rateLimits {
		for _, r := range rateResults {
			m.rateLimits.WithLabelValues(l, r)
		}
	}
}

// ObserveRateLimit counts one check of limit with its result
// (RateLimitAllowed, RateLimitLimited or RateLimitUnavailable). Values
// outside the fixed sets count as "other".
func (m *Metrics) ObserveRateLimit(limit, result string) {
	if m == nil {
		return
	}
	m.rateLimits.WithLabelValues(pickFixed(rateLimits, limit), pickFixed(rateResults, result)).Inc()
}

func pickFixed(set []string, v string) string {
	for _, s := range set {
		if s == v {
			return v
		}
	}
	return "other"
}
