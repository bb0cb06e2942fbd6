package loadtest

import (
	"os/exec"
	"testing"
	"time"
)

// TestFigureChecks: each figure passes exactly at its threshold's side.
func TestFigureChecks(t *testing.T) {
	tests := []struct {
		name     string
		p99      time.Duration
		late     int
		heap     float64
		wantPass []bool // p99, late allows, heap
	}{
		{"all met", 3 * time.Millisecond, 0, 900, []bool{true, true, true}},
		{"at the bounds", ThresholdPropagationP99 - 1, 0, ThresholdHeapPerCapability, []bool{true, true, true}},
		{"p99 at the bound", ThresholdPropagationP99, 0, 1000, []bool{false, true, true}},
		{"one late allow", time.Millisecond, 1, 1000, []bool{true, false, true}},
		{"heap over", time.Millisecond, 0, ThresholdHeapPerCapability + 1, []bool{true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Propagation: &Propagation{Refused: Latencies{P99: tt.p99}, LateAllows: tt.late},
				Heap: &Heap{BytesPerCapability: tt.heap}}
			checks := r.figureChecks()
			if len(checks) != len(tt.wantPass) {
				t.Fatalf("%d checks, want %d", len(checks), len(tt.wantPass))
			}
			for i, c := range checks {
				if c.Pass != tt.wantPass[i] {
					t.Errorf("%s: pass %v, want %v (value %s)", c.Name, c.Pass, tt.wantPass[i], c.Value)
				}
			}
		})
	}
	if got := (&Report{}).figureChecks(); len(got) != 0 {
		t.Errorf("figures not measured give checks %v", got)
	}
}

// TestRunFigures measures both figures for real: two replicas on a
// throwaway redis-server, and the catalog gateway's heap.
func TestRunFigures(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("no redis-server on PATH")
	}
	for _, target := range []Target{TargetPropagation, TargetHeap} {
		o := quickOptions()
		o.Only, o.Redis, o.Variants = target, RedisAuto, []Variant{VariantMemory}
		rep, err := Run(t.Context(), o)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if len(rep.Rows) != 0 {
			t.Errorf("%s: %d load rows, want none", target, len(rep.Rows))
		}
		switch target {
		case TargetPropagation:
			p := rep.Propagation
			if p == nil || rep.Heap != nil {
				t.Fatalf("propagation %v, heap %v: want the propagation figure only", p, rep.Heap)
			}
			if p.Trials != o.PropagationTrials || p.Refused.Samples != o.PropagationTrials || p.Refused.P50 <= 0 || p.LoadCalls == 0 {
				t.Errorf("propagation figure %+v", p)
			}
			// A revoke returns once every replica holds it: a correctness
			// property, not a timing.
			if p.LateAllows != 0 {
				t.Errorf("%d calls allowed on B after the revoke returned on A", p.LateAllows)
			}
		case TargetHeap:
			if rep.Heap == nil || rep.Propagation != nil || rep.Heap.Capabilities != o.HeapCapabilities {
				t.Fatalf("heap %v, propagation %v: want the heap figure only", rep.Heap, rep.Propagation)
			}
		}
		if len(rep.Checks) == 0 {
			t.Errorf("%s: no checks", target)
		}
	}
}
