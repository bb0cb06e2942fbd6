package loadtest

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Rounds. The machine the load command runs on is shared, and its speed
// drifts by up to 2× within a minute. Run one after another, a baseline
// step that happened to run in a fast minute and a capgate step in a slow
// one gave ratios from 0.59× to 0.95× for one binary. So the plan runs
// in rounds: each round runs every step for its share of the duration,
// in plan order, and a step's result is the sum of its slices. Every
// step then sees the same minutes, and a drift moves the baseline and
// capgate together instead of moving their ratio. The invoke steps take
// their rounds first, then issuance and attenuation theirs: those issue
// capabilities that stay live in the gateway's index, and an invoke slice
// of a later round would run on a heap an earlier round's issuance grew.

// DefaultRounds is how many rounds a plan runs in.
const DefaultRounds = 5

// minSlice is the shortest measured slice a round may give a step.
const minSlice = 50 * time.Millisecond

// slice is the warm-up and measured time of one step in one round.
func (o Options) slice() (warmup, measured time.Duration) {
	return o.warmup() / time.Duration(o.Rounds), o.Duration / time.Duration(o.Rounds)
}

// runPlan runs steps, in plan order, in rounds: the invoke steps, then
// the others. It returns each step's merged result and the upstream calls
// made during it.
func runPlan(ctx context.Context, lab *Lab, steps []Step, o Options) ([]Result, []uint64, error) {
	return runPlanWith(steps, o, func(s Step) (Result, uint64, error) {
		before := lab.UpstreamCalls()
		res, err := runStep(ctx, lab, s, o)
		return res, lab.UpstreamCalls() - before, err
	})
}

// slicer runs one round's slice of a step and returns its result and the
// upstream calls made during it.
type slicer func(s Step) (Result, uint64, error)

// runPlanWith is runPlan with each slice run by run.
func runPlanWith(steps []Step, o Options, run slicer) ([]Result, []uint64, error) {
	split := len(steps)
	for i, s := range steps {
		if !proxied(methodOf(s.Target)) {
			split = i
			break
		}
	}
	if slices.ContainsFunc(steps[split:], func(s Step) bool { return proxied(methodOf(s.Target)) }) {
		return nil, nil, fmt.Errorf("%w: an invoke step after issuance or attenuation in the plan", ErrInvalidOptions)
	}
	results, calls, err := runRounds(steps[:split], 0, len(steps), o, run)
	if err != nil {
		return nil, nil, err
	}
	rest, restCalls, err := runRounds(steps[split:], split, len(steps), o, run)
	if err != nil {
		return nil, nil, err
	}
	return append(results, rest...), append(calls, restCalls...), nil
}

// runRounds runs steps (the plan's from first on, of total) in o.Rounds
// rounds and returns each step's merged result and the upstream calls
// made during it.
func runRounds(steps []Step, first, total int, o Options, run slicer) ([]Result, []uint64, error) {
	if len(steps) == 0 {
		return nil, nil, nil
	}
	parts := make([][]Result, len(steps))
	calls := make([]uint64, len(steps))
	for round := 1; round <= o.Rounds; round++ {
		for i, s := range steps {
			res, n, err := run(s)
			if err != nil {
				return nil, nil, err
			}
			calls[i] += n
			parts[i] = append(parts[i], res)
		}
		fmt.Fprintf(o.Progress, "round %d/%d of runs %d-%d done\n", round, o.Rounds, first+1, first+len(steps))
	}
	merged := make([]Result, len(steps))
	for i, s := range steps {
		m := mergeResults(parts[i])
		merged[i] = m
		fmt.Fprintf(o.Progress, "[%2d/%d] %-16s %-6s %3d conns: %9.0f req/s, p50 %s, %d errors\n",
			first+i+1, total, s.Target, s.Variant, s.Conns, m.RequestsPerSecond(), formatDuration(m.Latencies.P50), m.Errors)
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
