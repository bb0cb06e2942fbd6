package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// The surfaces of the admin listener whose refused calls
// refused_calls_total counts.
const (
	SurfaceAdmin   = "admin"
	SurfaceConsole = "console"
)

// refusedSurfaces and refusedStatuses are the fixed label values of
// refused_calls_total.
var (
	refusedSurfaces = []string{SurfaceAdmin, SurfaceConsole}
	refusedStatuses = []string{"401", "403"}
)

func newRefusedCalls() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "refused_calls_total",
		Help: "Admin API and console calls refused as unauthenticated (401) or not allowed (403), by surface " +
			"(admin, console) and status; every one counts, including those the audit trail only summarizes."},
		[]string{"surface", "status"})
}

func (m *Metrics) initRefusedLabels() {
	for _, s := range refusedSurfaces {
		for _, c := range refusedStatuses {
			m.refused.WithLabelValues(s, c)
		}
	}
}

// ObserveRefused counts one call refused on surface (SurfaceAdmin or
// SurfaceConsole) with status (401 or 403). Values outside the fixed
// sets count as "other".
func (m *Metrics) ObserveRefused(surface string, status int) {
	if m == nil {
		return
	}
	m.refused.WithLabelValues(pickFixed(refusedSurfaces, surface), pickFixed(refusedStatuses, strconv.Itoa(status))).Inc()
}
