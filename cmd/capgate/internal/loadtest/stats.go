package loadtest

import (
	"math"
	"slices"
	"time"
)

// Latencies summarises the latency samples of one run.
type Latencies struct {
	// Samples is how many latencies were recorded.
	Samples int
	P50     time.Duration
	P99     time.Duration
	P999    time.Duration
	Max     time.Duration
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted, an
// ascending slice, by the nearest-rank method: the smallest sample such
// that at least p percent of the samples are less than or equal to it. It
// returns 0 for an empty slice, and the extremes for p outside (0, 100].
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// p/100*n is exact in theory but not in floating point (99.9/100*1000
	// is 999.0000000000001): shave a relative hair off before rounding up.
	x := p / 100 * float64(n)
	rank := int(math.Ceil(x - x*1e-12))
	switch {
	case rank < 1:
		rank = 1
	case rank > n:
		rank = n
	}
	return sorted[rank-1]
}

// Summarize merges per-worker samples, sorts them and takes the
// percentiles the report shows.
func Summarize(perWorker [][]time.Duration) Latencies {
	total := 0
	for _, s := range perWorker {
		total += len(s)
	}
	all := make([]time.Duration, 0, total)
	for _, s := range perWorker {
		all = append(all, s...)
	}
	slices.Sort(all)
	l := Latencies{Samples: total, P50: Percentile(all, 50), P99: Percentile(all, 99), P999: Percentile(all, 99.9)}
	if total > 0 {
		l.Max = all[total-1]
	}
	return l
}
