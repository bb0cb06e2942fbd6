package loadtest

import (
	"context"
	"fmt"
	"time"
)

// Rounds. The machine the load command runs on is shared, and its speed
// drifts by up to 2× within a minute. Run one after another, a baseline
// step that happened to run in a fast minute and a capgate step in a slow
// one gave ratios from 0.59× to 0.95× for one binary. So the plan runs
// in rounds: each round runs every step for its share of the duration,
// in plan order, and a step's result is the sum of its slices. Every
// step then sees the same minutes, and a drift moves the baseline and
// capgate together instead of moving their ratio.

// DefaultRounds is how many rounds a plan runs in.
const DefaultRounds = 5

// minSlice is the shortest measured slice a round may give a step.
const minSlice = 50 * time.Millisecond

// slice is the warm-up and measured time of one step in one round.
func (o Options) slice() (warmup, measured time.Duration) {
	return o.warmup() / time.Duration(o.Rounds), o.Duration / time.Duration(o.Rounds)
}

// runRounds runs steps in o.Rounds rounds and returns each step's
// merged result and the upstream calls made during it.
func runRounds(ctx context.Context, lab *Lab, steps []Step, o Options) ([]Result, []uint64, error) {
	parts := make([][]Result, len(steps))
	calls := make([]uint64, len(steps))
	for round := 1; round <= o.Rounds; round++ {
		for i, s := range steps {
			before := lab.UpstreamCalls()
			res, err := runStep(ctx, lab, s, o)
			if err != nil {
				return nil, nil, err
			}
			calls[i] += lab.UpstreamCalls() - before
			parts[i] = append(parts[i], res)
		}
		fmt.Fprintf(o.Progress, "round %d/%d done\n", round, o.Rounds)
	}
	merged := make([]Result, len(steps))
	for i, s := range steps {
		m := mergeResults(parts[i])
		merged[i] = m
		fmt.Fprintf(o.Progress, "[%2d/%d] %-16s %-6s %3d conns: %9.0f req/s, p50 %s, %d errors\n",
			i+1, len(steps), s.Target, s.Variant, s.Conns, m.RequestsPerSecond(), formatDuration(m.Latencies.P50), m.Errors)
	}
	return merged, calls, nil
}

// mergeResults is the result of one step measured in slices: counts,
// elapsed time, CPU and allocations summed (the per-request figures
// weighted by each slice's requests), the latencies summarized over every
// slice's samples.
func mergeResults(rs []Result) Result {
	if len(rs) == 1 {
		return rs[0]
	}
	var m Result
	var cpu time.Duration
	var allocs, bytes float64
	var samples [][]time.Duration
	for _, r := range rs {
		m.Requests += r.Requests
		m.Errors += r.Errors
		m.Dropped += r.Dropped
		m.Elapsed += r.Elapsed
		if m.FirstError == "" {
			m.FirstError = r.FirstError
		}
		cpu += r.CPUPerRequest * time.Duration(r.Requests)
		allocs += r.AllocsPerRequest * float64(r.Requests)
		bytes += r.BytesPerRequest * float64(r.Requests)
		samples = append(samples, r.samples...)
	}
	m.Latencies = Summarize(samples)
	if m.Requests > 0 {
		m.CPUPerRequest = cpu / time.Duration(m.Requests)
		m.AllocsPerRequest = allocs / float64(m.Requests)
		m.BytesPerRequest = bytes / float64(m.Requests)
	}
	return m
}
