package loadtest

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The scale matrix: what capgate costs as the world grows. Each case
// runs on its own lab (an upstream answering as its World says, the
// baseline in front of it, one capgate with the in-memory store), and
// every case runs in the same interleaved rounds, so each ratio compares
// runs made in the same minutes of a shared machine.

// ScaleConns is the connection count of the matrix's cases but the
// small-call one, which runs at RatioConns.
const ScaleConns = 8

// IDsPer80Bytes is one id per 80 bytes of answer, in ids per KiB.
const IDsPer80Bytes = 1024.0 / 80

// Targets of the scale matrix, all ratios from one run.
const (
	// ThresholdCatalogRatio: capgate's req/s with a catalog of 10,000
	// over its req/s with a catalog of 2, same 4 KiB answer, each taken
	// over the req/s of the baseline run beside it.
	ThresholdCatalogRatio = 0.9
	// Threshold256KiB and Threshold256KiBIDs: capgate over the baseline
	// with 256 KiB answers, without ids and with one per 80 bytes.
	Threshold256KiB    = 0.6
	Threshold256KiBIDs = 0.5
	// Threshold16KiB: capgate over the baseline with 16 KiB answers.
	Threshold16KiB = 0.7
	// ThresholdIssuanceCatalog: issuance from a catalog of 10,000 over
	// issuance from a catalog of 2.
	ThresholdIssuanceCatalog = 0.8
	// ThresholdSmallCall: the small-call path over the baseline at
	// RatioConns connections.
	ThresholdSmallCall = 0.7
)

// ScaleCase is one row of the matrix.
type ScaleCase struct {
	Name  string `json:"name"`
	World World  `json:"world"`
	Conns int    `json:"conns"`
	// Issuance drives a2a/capabilities/request (from World's catalog)
	// instead of the invoke path, and has no baseline.
	Issuance bool `json:"issuance"`
}

// ScaleMatrix is the fixed matrix of --scale: answers of 1, 16 and 256
// KiB with and without ids (catalog 2); catalogs of 2, 1,000 and 10,000
// (4 KiB answer); issuance from catalogs of 2 and 10,000; and the
// small-call path (the quickstart's world) at RatioConns.
func ScaleMatrix() []ScaleCase {
	out := []ScaleCase{{Name: "small call", World: World{}, Conns: RatioConns}}
	for _, kib := range []int{1, 16, 256} {
		out = append(out,
			ScaleCase{Name: fmt.Sprintf("%d KiB", kib), World: World{AnswerKiB: kib, Catalog: 2}, Conns: ScaleConns},
			ScaleCase{Name: fmt.Sprintf("%d KiB + ids", kib), World: World{AnswerKiB: kib, IDsPerKiB: IDsPer80Bytes, Catalog: 2}, Conns: ScaleConns})
	}
	for _, c := range []int{2, 1_000, 10_000} {
		out = append(out, ScaleCase{Name: "catalog " + groupThousands(float64(c)), World: World{AnswerKiB: 4, Catalog: c}, Conns: ScaleConns})
	}
	for _, c := range []int{2, 10_000} {
		out = append(out, ScaleCase{Name: "issuance, catalog " + groupThousands(float64(c)), World: World{AnswerKiB: 4, Catalog: c},
			Conns: ScaleConns, Issuance: true})
	}
	return out
}

// ScaleRow is one case's measurement.
type ScaleRow struct {
	ScaleCase
	// Baseline is the baseline with the same answer, in the same run;
	// zero for issuance.
	Baseline Result
	// Capgate is capgate's invoke path, or its issuance.
	Capgate Result
	// Ratio is Capgate's req/s over Baseline's, or for issuance over the
	// issuance from a catalog of 2.
	Ratio float64
	// UpstreamCalls counts the calls that reached the upstream during
	// capgate's runs.
	UpstreamCalls uint64
}

// ScaleReport is the outcome of RunScale.
type ScaleReport struct {
	*Report
	Scale []ScaleRow
}

// scaleStep is one run of the matrix: a target on one case's lab.
type scaleStep struct {
	row  int
	lab  *Lab
	step Step
}

// RunScale runs the scale matrix with o's duration, warm-up and rounds
// (o.Conns, o.Variants, o.World and o.Only do not apply), and returns
// the rows, their ratios and the checks of the targets above.
func RunScale(ctx context.Context, o Options) (rep *ScaleReport, err error) {
	o = o.WithDefaults()
	o.Variants, o.Redis, o.Only, o.World = []Variant{VariantMemory}, RedisOff, TargetCapgate, World{}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	began := o.Now()
	matrix := ScaleMatrix()
	fmt.Fprintf(o.Progress, "loadtest: starting one lab per world of the scale matrix (%d cases) ...\n", len(matrix))
	labs := map[World]*Lab{}
	defer func() {
		for _, l := range labs {
			if cerr := l.Close(); cerr != nil && err == nil {
				rep, err = nil, fmt.Errorf("loadtest: stopping the targets: %w", cerr)
			}
		}
	}()
	var invoke, issue []scaleStep
	for i, c := range matrix {
		lab := labs[c.World]
		if lab == nil {
			lo := o
			lo.World = c.World
			if lab, err = StartLab(ctx, lo); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
			labs[c.World] = lab
		}
		if c.Issuance {
			issue = append(issue, scaleStep{i, lab, Step{Target: TargetIssuance, Variant: VariantMemory, Conns: c.Conns}})
			continue
		}
		invoke = append(invoke, scaleStep{i, lab, Step{Target: TargetBaseline, Conns: c.Conns}},
			scaleStep{i, lab, Step{Target: TargetCapgate, Variant: VariantMemory, Conns: c.Conns}})
	}
	fmt.Fprintf(o.Progress, "loadtest scale plan: %d runs × (%v warm-up + %v measured), in %d interleaved rounds\n",
		len(invoke)+len(issue), o.warmup(), o.Duration, o.Rounds)
	rows := make([]ScaleRow, len(matrix))
	for i, c := range matrix {
		rows[i].ScaleCase = c
	}
	// Issuance leaves capabilities live in the gateway: it runs after
	// every invoke round, as in Run.
	for _, steps := range [][]scaleStep{invoke, issue} {
		if err := runScaleSteps(ctx, steps, rows, o); err != nil {
			return nil, err
		}
	}
	rep = &ScaleReport{Report: NewReport(o, nil), Scale: rows}
	rep.finishScale(o.Now().Sub(began))
	return rep, nil
}

// runScaleSteps runs steps in o.Rounds interleaved rounds and puts each
// merged result in its row.
func runScaleSteps(ctx context.Context, steps []scaleStep, rows []ScaleRow, o Options) error {
	parts := make([][]Result, len(steps))
	for round := 1; round <= o.Rounds; round++ {
		for i, s := range steps {
			before := s.lab.UpstreamCalls()
			res, err := runStep(ctx, s.lab, s.step, o)
			if err != nil {
				return err
			}
			if s.step.Target != TargetBaseline {
				rows[s.row].UpstreamCalls += s.lab.UpstreamCalls() - before
			}
			parts[i] = append(parts[i], res)
		}
		fmt.Fprintf(o.Progress, "round %d/%d of %d runs done\n", round, o.Rounds, len(steps))
	}
	for i, s := range steps {
		m := mergeResults(parts[i])
		if s.step.Target == TargetBaseline {
			rows[s.row].Baseline = m
		} else {
			rows[s.row].Capgate = m
		}
		fmt.Fprintf(o.Progress, "%-26s %-9s %3d conns: %9.0f req/s, %d errors\n",
			rows[s.row].Name, s.step.Target, s.step.Conns, m.RequestsPerSecond(), m.Errors)
	}
	return nil
}

// errNoRow is a check whose row the report lacks.
var errNoRow = errors.New("no such row")

// row returns the row named name.
func (r *ScaleReport) row(name string) (ScaleRow, error) {
	for _, row := range r.Scale {
		if row.Name == name {
			return row, nil
		}
	}
	return ScaleRow{}, fmt.Errorf("%w: %s", errNoRow, name)
}

// finishScale computes the ratios and the checks.
func (r *ScaleReport) finishScale(wall time.Duration) {
	r.Wall = wall
	issue2, _ := r.row("issuance, catalog 2")
	for i := range r.Scale {
		row := &r.Scale[i]
		base := row.Baseline.RequestsPerSecond()
		if row.Issuance {
			base = issue2.Capgate.RequestsPerSecond()
		}
		if base > 0 {
			row.Ratio = row.Capgate.RequestsPerSecond() / base
		}
	}
	// The two catalogs run on two labs, minutes apart on a machine whose
	// speed drifts: each is taken over the baseline run beside it.
	cat2, _ := r.row("catalog 2")
	cat10k, _ := r.row("catalog 10,000")
	catalog := 0.0
	if cat2.Ratio > 0 {
		catalog = cat10k.Ratio / cat2.Ratio
	}
	r.Checks = []Check{r.ratioCheck(fmt.Sprintf("catalog 10,000 ≥ %.2f× catalog 2 (4 KiB, each ÷ its baseline)", ThresholdCatalogRatio),
		catalog, ThresholdCatalogRatio, cat2, cat10k)}
	for _, t := range []struct {
		row  string
		min  float64
		what string
	}{
		{"256 KiB", Threshold256KiB, "baseline"}, {"256 KiB + ids", Threshold256KiBIDs, "baseline"},
		{"16 KiB", Threshold16KiB, "baseline"}, {"issuance, catalog 10,000", ThresholdIssuanceCatalog, "issuance from catalog 2"},
		{"small call", ThresholdSmallCall, fmt.Sprintf("baseline at %d conns", RatioConns)},
	} {
		row, _ := r.row(t.row)
		r.Checks = append(r.Checks, r.ratioCheck(fmt.Sprintf("%s ≥ %.2f× %s", t.row, t.min, t.what), row.Ratio, t.min, row))
	}
}

// ratioCheck is the check that ratio is at least min, with no failed
// request in rows.
func (r *ScaleReport) ratioCheck(name string, ratio, min float64, rows ...ScaleRow) Check {
	pass := ratio >= min
	for _, row := range rows {
		pass = pass && row.Capgate.Errors == 0 && row.Baseline.Errors == 0 && row.Capgate.Requests > 0
	}
	return Check{Name: name, Variant: VariantMemory, Value: fmt.Sprintf("%.2f×", ratio), Pass: pass}
}

// Problems describes every row whose numbers are not a valid
// measurement: failed requests, or invocations that succeeded without
// reaching the upstream.
func (r *ScaleReport) Problems() []string {
	var out []string
	for _, row := range r.Scale {
		for _, res := range []Result{row.Baseline, row.Capgate} {
			if res.Errors > 0 {
				out = append(out, fmt.Sprintf("%s: %d of %d requests failed; first: %s", row.Name, res.Errors, res.Requests, res.FirstError))
			}
		}
		if ok := row.Capgate.Requests - row.Capgate.Errors; !row.Issuance && uint64(ok) > row.UpstreamCalls {
			out = append(out, fmt.Sprintf("%s: %d requests succeeded but the upstream saw only %d calls", row.Name, ok, row.UpstreamCalls))
		}
	}
	return out
}
