package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// ScaleNote says how to read the scale table.
const ScaleNote = "×: capgate's req/s over the baseline's with the same answer, in the same run " +
	"(issuance: over issuance from a catalog of 2); cpu/req and B/req count the whole process, capgate's run / the baseline's"

// WriteTable writes the scale matrix as a table, then the checks.
func (r *ScaleReport) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "capgate scale matrix: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d; %v per run after a %v warm-up (discarded), in %s; wall %v\n",
		r.GoVersion, r.GOOS, r.GOARCH, r.GOMAXPROCS, r.NumCPU, r.Duration, r.Warmup, roundsLabel(r.Rounds), r.Wall.Round(100*time.Millisecond))
	b.WriteString(ScaleNote + "\n\n")
	cells := [][]string{{"case", "answer", "ids/KiB", "catalog", "conns", "baseline req/s", "capgate req/s", "×", "cpu/req", "B/req", "errors"}}
	for _, row := range r.Scale {
		cells = append(cells, scaleTableRow(row))
	}
	writeColumns(&b, cells, 1)
	if bad := r.Problems(); len(bad) > 0 {
		fmt.Fprintf(&b, "\n!!! %d PROBLEM(S): the rows named below are NOT valid measurements !!!\n", len(bad))
		for _, p := range bad {
			fmt.Fprintf(&b, "!!! %s\n", p)
		}
	}
	r.writeTrailer(&b) // the notes and the checks: the embedded report has no rows of its own
	_, err := io.WriteString(w, b.String())
	return err
}

func scaleTableRow(row ScaleRow) []string {
	answer, catalog, base := "~100 B", "hook", "-"
	if row.World.AnswerKiB > 0 {
		answer = fmt.Sprintf("%d KiB", row.World.AnswerKiB)
	}
	if row.World.Catalog > 0 {
		catalog = groupThousands(float64(row.World.Catalog))
	}
	cpu, bytes := formatDuration(row.Capgate.CPUPerRequest), groupThousands(row.Capgate.BytesPerRequest)
	if !row.Issuance {
		base = groupThousands(row.Baseline.RequestsPerSecond())
		cpu += " / " + formatDuration(row.Baseline.CPUPerRequest)
		bytes += " / " + groupThousands(row.Baseline.BytesPerRequest)
	}
	errs := fmt.Sprint(row.Capgate.Errors + row.Baseline.Errors)
	if errs != "0" {
		errs += " !!"
	}
	return []string{row.Name, answer, fmt.Sprintf("%.1f", row.World.IDsPerKiB), catalog, fmt.Sprint(row.Conns),
		base, groupThousands(row.Capgate.RequestsPerSecond()), fmt.Sprintf("%.2f×", row.Ratio), cpu, bytes, errs}
}

// jsonScaleRow is one row of the --json shape of the scale matrix.
type jsonScaleRow struct {
	ScaleCase
	Baseline      *jsonRow `json:"baseline,omitempty"`
	Capgate       jsonRow  `json:"capgate"`
	Ratio         float64  `json:"ratio"`
	UpstreamCalls uint64   `json:"upstream_calls"`
}

// WriteJSON writes the scale matrix as JSON.
func (r *ScaleReport) WriteJSON(w io.Writer) error {
	out := struct {
		GoVersion  string         `json:"go_version"`
		GOMAXPROCS int            `json:"gomaxprocs"`
		NumCPU     int            `json:"num_cpu"`
		DurationS  float64        `json:"duration_s"`
		WarmupS    float64        `json:"warmup_s"`
		Rounds     int            `json:"rounds"`
		WallS      float64        `json:"wall_s"`
		Note       string         `json:"note"`
		Rows       []jsonScaleRow `json:"rows"`
		Problems   []string       `json:"problems"`
		Checks     []jsonCheck    `json:"checks"`
	}{GoVersion: r.GoVersion, GOMAXPROCS: r.GOMAXPROCS, NumCPU: r.NumCPU, DurationS: r.Duration.Seconds(), WarmupS: r.Warmup.Seconds(),
		Rounds: r.Rounds, WallS: r.Wall.Seconds(), Note: ScaleNote, Rows: []jsonScaleRow{}, Problems: append([]string{}, r.Problems()...),
		Checks: []jsonCheck{}}
	for _, row := range r.Scale {
		jr := jsonScaleRow{ScaleCase: row.ScaleCase, Ratio: row.Ratio, UpstreamCalls: row.UpstreamCalls,
			Capgate: toJSONRow(Row{Step: Step{Target: TargetCapgate, Variant: VariantMemory, Conns: row.Conns}, Result: row.Capgate})}
		if row.Issuance {
			jr.Capgate.Target, jr.Capgate.Method = TargetIssuance, methodRequest
		} else {
			b := toJSONRow(Row{Step: Step{Target: TargetBaseline, Conns: row.Conns}, Method: methodInvoke, Result: row.Baseline})
			jr.Baseline, jr.Capgate.Method = &b, methodInvoke
		}
		out.Rows = append(out.Rows, jr)
	}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, jsonCheck(c))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
