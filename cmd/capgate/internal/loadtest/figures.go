package loadtest

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Thresholds of the figures measured after the load steps.
const (
	// ThresholdPropagationP99 bounds the p99 time from a revoke call on
	// one replica until another refuses the capability.
	ThresholdPropagationP99 = 50 * time.Millisecond
	// ThresholdHeapPerCapability bounds the live heap per issued
	// capability, in bytes.
	ThresholdHeapPerCapability = 1024.0
)

// measureFigures measures the propagation and heap figures into rep,
// each when o runs it and the lab could start what it needs.
func measureFigures(ctx context.Context, lab *Lab, o Options, rep *Report) error {
	if o.runs(TargetPropagation) && lab.ReplicaA != nil {
		fmt.Fprintf(o.Progress, "propagation: %d revocations on replica A, timed until replica B refuses (B under load) ...\n", o.PropagationTrials)
		p, err := MeasurePropagation(ctx, lab, o.PropagationTrials)
		if err != nil {
			return err
		}
		rep.Propagation = p
	}
	if o.runs(TargetHeap) && lab.Catalog != nil {
		fmt.Fprintf(o.Progress, "heap: %d capabilities issued from the catalog agent ...\n", o.HeapCapabilities)
		h, err := MeasureHeap(ctx, lab, o.HeapCapabilities)
		if err != nil {
			return err
		}
		rep.Heap = h
	}
	return nil
}

// figureChecks are the checks of the figures measured.
func (r *Report) figureChecks() []Check {
	var out []Check
	if p := r.Propagation; p != nil {
		out = append(out,
			Check{Name: fmt.Sprintf("revocation refused on another replica, p99 < %v", ThresholdPropagationP99),
				Variant: VariantSynced, Value: formatDuration(p.Refused.P99), Pass: p.Refused.P99 < ThresholdPropagationP99},
			Check{Name: "0 late allows on another replica after a revoke",
				Variant: VariantSynced, Value: fmt.Sprintf("%d late allows", p.LateAllows), Pass: p.LateAllows == 0})
	}
	if h := r.Heap; h != nil {
		out = append(out, Check{Name: fmt.Sprintf("≤ %.0f B of heap per live capability", ThresholdHeapPerCapability),
			Variant: VariantMemory, Value: fmt.Sprintf("%.0f B", h.BytesPerCapability),
			Pass: h.BytesPerCapability <= ThresholdHeapPerCapability})
	}
	return out
}

// writeFigures writes the figures measured after the load steps.
func (r *Report) writeFigures(b *strings.Builder) {
	if p := r.Propagation; p != nil {
		fmt.Fprintf(b, "\npropagation: %d revocations on replica A (synced store and capability index on one Redis) while %d callers made %d calls on replica B\n",
			p.Trials, p.Load, p.LoadCalls)
		fmt.Fprintf(b, "  revoke call on A to B's first refusal: p50 %s, p99 %s, max %s (includes the revoke call and one call on B)\n",
			formatDuration(p.Refused.P50), formatDuration(p.Refused.P99), formatDuration(p.Refused.Max))
		fmt.Fprintf(b, "  the revoke call itself: p50 %s, p99 %s\n", formatDuration(p.Revoke.P50), formatDuration(p.Revoke.P99))
		fmt.Fprintf(b, "  late allows (calls on B started after the revoke returned, still allowed): %d, in %d of %d trials\n",
			p.LateAllows, p.LateTrials, p.Trials)
	}
	if h := r.Heap; h != nil {
		fmt.Fprintf(b, "\nheap: %.0f B per live capability (%d capabilities from the catalog agent; live heap after GC, before and after)\n",
			h.BytesPerCapability, h.Capabilities)
	}
	if r.Propagation != nil || r.Heap != nil {
		b.WriteString("\n")
	}
}

// jsonPropagation and jsonHeap are the figures in the --json shape.
type jsonPropagation struct {
	Trials       int     `json:"trials"`
	Load         int     `json:"load_callers"`
	LoadCalls    int64   `json:"load_calls"`
	RefusedP50us float64 `json:"refused_p50_us"`
	RefusedP99us float64 `json:"refused_p99_us"`
	RefusedMaxUs float64 `json:"refused_max_us"`
	RevokeP50us  float64 `json:"revoke_p50_us"`
	RevokeP99us  float64 `json:"revoke_p99_us"`
	LateAllows   int     `json:"late_allows"`
	LateTrials   int     `json:"late_trials"`
}

type jsonHeap struct {
	Capabilities       int     `json:"capabilities"`
	BytesPerCapability float64 `json:"bytes_per_capability"`
}

func (r *Report) jsonFigures() (*jsonPropagation, *jsonHeap) {
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	var jp *jsonPropagation
	if p := r.Propagation; p != nil {
		jp = &jsonPropagation{Trials: p.Trials, Load: p.Load, LoadCalls: p.LoadCalls,
			RefusedP50us: us(p.Refused.P50), RefusedP99us: us(p.Refused.P99), RefusedMaxUs: us(p.Refused.Max),
			RevokeP50us: us(p.Revoke.P50), RevokeP99us: us(p.Revoke.P99), LateAllows: p.LateAllows, LateTrials: p.LateTrials}
	}
	var jh *jsonHeap
	if h := r.Heap; h != nil {
		jh = &jsonHeap{Capabilities: h.Capabilities, BytesPerCapability: h.BytesPerCapability}
	}
	return jp, jh
}
