package loadtest

import (
	"testing"
	"time"
)

func ds(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i + 1)
	}
	thousand := make([]time.Duration, 1000)
	for i := range thousand {
		thousand[i] = time.Duration(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample", ds(7), 50, 7},
		{"one sample p99.9", ds(7), 99.9, 7},
		{"p50 of 4 is the 2nd", ds(1, 2, 3, 4), 50, 2},
		{"p50 of 5 is the 3rd", ds(1, 2, 3, 4, 5), 50, 3},
		{"p99 of 4 is the max", ds(1, 2, 3, 4), 99, 4},
		{"p50 of 1..100", hundred, 50, 50},
		{"p99 of 1..100", hundred, 99, 99},
		{"p99.9 of 1..100 is the max", hundred, 99.9, 100},
		{"p99.9 of 1..1000", thousand, 99.9, 999},
		{"p100 is the max", hundred, 100, 100},
		{"p0 is clamped to the min", hundred, 0, 1},
		{"above 100 is clamped to the max", hundred, 150, 100},
		{"negative is clamped to the min", hundred, -5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Fatalf("Percentile(p%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeMergesWorkers(t *testing.T) {
	l := Summarize([][]time.Duration{ds(9, 1, 5), nil, ds(3, 7), ds(2, 4, 6, 8, 10)})
	want := Latencies{Samples: 10, P50: 5, P99: 10, P999: 10, Max: 10}
	if l != want {
		t.Fatalf("Summarize = %+v, want %+v", l, want)
	}
	if z := Summarize(nil); z != (Latencies{}) {
		t.Fatalf("Summarize(nil) = %+v, want zero", z)
	}
}

// TestMergeResults: a step measured in slices counts every slice's
// requests, time and failures, weighs the per-request figures by each
// slice's requests, and takes its percentiles over every slice's samples.
func TestMergeResults(t *testing.T) {
	ms := time.Millisecond
	a := Result{Requests: 100, Errors: 1, FirstError: "first", Elapsed: time.Second, CPUPerRequest: 10 * time.Microsecond,
		AllocsPerRequest: 200, BytesPerRequest: 1000, samples: [][]time.Duration{{1 * ms, 2 * ms}, {3 * ms}}}
	b := Result{Requests: 300, Errors: 2, FirstError: "second", Dropped: 4, Elapsed: 2 * time.Second, CPUPerRequest: 30 * time.Microsecond,
		AllocsPerRequest: 100, BytesPerRequest: 2000, samples: [][]time.Duration{{4 * ms, 5 * ms}}}
	m := mergeResults([]Result{a, b})
	want := Result{Requests: 400, Errors: 3, FirstError: "first", Dropped: 4, Elapsed: 3 * time.Second,
		CPUPerRequest: 25 * time.Microsecond, AllocsPerRequest: 125, BytesPerRequest: 1750}
	if m.Requests != want.Requests || m.Errors != want.Errors || m.FirstError != want.FirstError || m.Dropped != want.Dropped ||
		m.Elapsed != want.Elapsed || m.CPUPerRequest != want.CPUPerRequest || m.AllocsPerRequest != want.AllocsPerRequest ||
		m.BytesPerRequest != want.BytesPerRequest {
		t.Errorf("merged = %+v, want %+v", m, want)
	}
	if m.Latencies.Samples != 5 || m.Latencies.P50 != 3*ms || m.Latencies.Max != 5*ms {
		t.Errorf("latencies = %+v, want 5 samples, p50 3ms, max 5ms", m.Latencies)
	}
	if got := m.RequestsPerSecond(); got != 400.0/3 {
		t.Errorf("req/s = %v, want the requests over the summed time", got)
	}
}

// TestRunPlanOrder: every step runs once per round; the invoke steps take
// all their rounds before issuance or attenuation runs at all (those
// leave capabilities live in the gateway); rows come back in plan order,
// each with its slices merged.
func TestRunPlanOrder(t *testing.T) {
	o := Options{Conns: []int{1, 64}, Variants: []Variant{VariantMemory}, Rounds: 3}.WithDefaults()
	steps := o.Plan([]Variant{VariantMemory})
	var ran []Step
	results, calls, err := runPlanWith(steps, o, func(s Step) (Result, uint64, error) {
		ran = append(ran, s)
		return Result{Requests: int64(s.Conns), Elapsed: time.Second}, 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 3*len(steps) {
		t.Fatalf("%d slices ran, want %d", len(ran), 3*len(steps))
	}
	seenOther := false
	for _, s := range ran {
		invoke := proxied(methodOf(s.Target))
		if invoke && seenOther {
			t.Fatalf("an invoke slice ran after issuance or attenuation: %v", ran)
		}
		seenOther = seenOther || !invoke
	}
	for i, s := range steps {
		if results[i].Requests != int64(3*s.Conns) || results[i].Elapsed != 3*time.Second || calls[i] != 3 {
			t.Errorf("row %d (%v) = %+v, %d calls; want three slices merged", i, s, results[i], calls[i])
		}
	}
}
