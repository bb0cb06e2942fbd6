package loadtest

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
)

// Run starts every target, drives the plan of o in interleaved rounds
// (runPlan), and returns the report, whose ratios against the baseline
// come from this same run. The plan, a line per round and one line per
// step once its last round ends go to o.Progress. An error means
// the comparison could not run (bad options, a target that would not
// start, a cancelled context); failed requests are reported in the rows.
func Run(ctx context.Context, o Options) (rep *Report, err error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	began := o.Now()
	fmt.Fprintln(o.Progress, "loadtest: starting the upstream, the baseline and capgate ...")
	lab, err := StartLab(ctx, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := lab.Close(); cerr != nil && err == nil {
			rep, err = nil, fmt.Errorf("loadtest: stopping the targets: %w", cerr)
		}
	}()
	steps := o.Plan(lab.Variants())
	notes := lab.Notes
	if len(lab.Capgates) > 1 && slices.ContainsFunc(steps, func(s Step) bool { return s.Target == TargetIssuance }) {
		notes = append(notes, "issuance runs on the first variant only: it never consults the revocation store")
	}
	WritePlan(o.Progress, o, steps, notes)
	rep = NewReport(o, notes)
	results, calls, err := runPlan(ctx, lab, steps, o)
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		rep.Add(s, results[i], calls[i])
	}
	if err := measureFigures(ctx, lab, o, rep); err != nil {
		return nil, err
	}
	rep.Finish(o.Now().Sub(began))
	return rep, nil
}

// runStep runs one round's slice of s.
func runStep(ctx context.Context, lab *Lab, s Step, o Options) (Result, error) {
	spec, err := lab.Spec(s, o)
	if err != nil {
		return Result{}, err
	}
	return Drive(ctx, spec)
}

// WritePlan prints the plan and its time budget before anything runs.
func WritePlan(w io.Writer, o Options, steps []Step, notes []string) {
	fmt.Fprintf(w, "loadtest plan: %d runs × (%v warm-up + %v measured), in %d interleaved rounds, = %v of load, plus setup; loopback only, GOMAXPROCS=%d\n",
		len(steps), o.warmup(), o.Duration, o.Rounds, o.Budget(steps), runtime.GOMAXPROCS(0))
	for i, s := range steps {
		fmt.Fprintf(w, "  %2d. %-16s %-6s %3d conns  %s\n", i+1, s.Target, variantLabel(s.Variant), s.Conns, methodOf(s.Target))
	}
	for _, n := range notes {
		fmt.Fprintln(w, "  note:", n)
	}
}

// methodOf is the JSON-RPC method a target is driven with.
func methodOf(t Target) string {
	switch t {
	case TargetIssuance, TargetIssuanceCatalog:
		return methodRequest
	case TargetAttenuation:
		return methodAttenuate
	case TargetMCP:
		return methodToolsCall
	}
	return methodInvoke
}

// proxied reports whether a method is driven through to the upstream,
// so that its rows are compared with the baseline's.
func proxied(method string) bool { return method == methodInvoke || method == methodToolsCall }

func variantLabel(v Variant) string {
	if v == "" {
		return "-"
	}
	return string(v)
}
