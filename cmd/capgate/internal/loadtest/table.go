package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteTable writes the report as a plain-text table: one row per step,
// with the ratio to the baseline's req/s and the p50 difference, then the
// notes, a loud block for any row with errors, and the targets.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "capgate load test: %s %s/%s, GOMAXPROCS=%d, NumCPU=%d; %v per run after a %v warm-up (discarded), in %s; wall %v\n",
		r.GoVersion, r.GOOS, r.GOARCH, r.GOMAXPROCS, r.NumCPU, r.Duration, r.Warmup, roundsLabel(r.Rounds), r.Wall.Round(100*time.Millisecond))
	if len(r.Rows) > 0 { // a run of the figures alone has no load rows to explain
		fmt.Fprintf(&b, "invoke = %s retrieve_document (capgate: full path); mcp = %s read_file at /mcp/files (full path); issuance = %s; attenuation = %s\n",
			methodInvoke, methodToolsCall, methodRequest, methodAttenuate)
		b.WriteString(AllocsNote + "\n\n")
		cells := [][]string{{"target", "variant", "conns", "req/s", "p50", "p99", "p99.9", "cpu/req", "allocs/req", "B/req", "errors", "×baseline", "Δp50"}}
		for _, row := range r.Rows {
			cells = append(cells, tableRow(row))
		}
		writeColumns(&b, cells, 2)
	}
	r.writeTrailer(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func tableRow(row Row) []string {
	ratio, delta := "-", "-"
	if row.HasBaseline {
		ratio, delta = fmt.Sprintf("%.2f×", row.Ratio), signedDuration(row.P50Delta)
	}
	cpu := "-"
	if row.CPUPerRequest > 0 {
		cpu = formatDuration(row.CPUPerRequest)
	}
	errs := fmt.Sprint(row.Errors)
	if row.Errors > 0 {
		errs += " !!"
	}
	return []string{string(row.Target), variantLabel(row.Variant), fmt.Sprint(row.Conns),
		groupThousands(row.RequestsPerSecond()), formatDuration(row.Latencies.P50),
		formatDuration(row.Latencies.P99), formatDuration(row.Latencies.P999), cpu,
		fmt.Sprintf("%.1f", row.AllocsPerRequest), groupThousands(row.BytesPerRequest), errs, ratio, delta}
}

// writeColumns writes cells as aligned columns: the first left columns
// aligned left, the others (numbers) aligned right.
func writeColumns(b *strings.Builder, cells [][]string, left int) {
	width := map[int]int{}
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range cells {
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i < left:
				b.WriteString(c + pad + "  ")
			case i == len(row)-1:
				b.WriteString(pad + c)
			default:
				b.WriteString(pad + c + "  ")
			}
		}
		b.WriteString("\n")
	}
}

func (r *Report) writeTrailer(b *strings.Builder) {
	r.writeFigures(b)
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	if bad := r.Problems(); len(bad) > 0 {
		fmt.Fprintf(b, "\n!!! %d PROBLEM(S): the rows named below are NOT valid measurements !!!\n", len(bad))
		for _, p := range bad {
			fmt.Fprintf(b, "!!! %s\n", p)
		}
	}
	if len(r.Checks) > 0 {
		b.WriteString("\ntargets:\n")
		writeChecks(b, r.Checks)
	}
}

// writeChecks writes one line a check, their names padded to the longest
// in characters (they hold ≥, × and ÷), so that variants and values line
// up.
func writeChecks(b *strings.Builder, checks []Check) {
	width := 0
	for _, c := range checks {
		width = max(width, utf8.RuneCountInString(c.Name))
	}
	for _, c := range checks {
		verdict := "FAIL"
		if c.Pass {
			verdict = "pass"
		}
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(c.Name))
		fmt.Fprintf(b, "  %-4s  %s%s  %-6s  %s\n", verdict, c.Name, pad, c.Variant, c.Value)
	}
}

// jsonReport is the --json shape: durations in microseconds or seconds,
// named in the member.
type jsonReport struct {
	GoVersion  string      `json:"go_version"`
	GOOS       string      `json:"goos"`
	GOARCH     string      `json:"goarch"`
	GOMAXPROCS int         `json:"gomaxprocs"`
	NumCPU     int         `json:"num_cpu"`
	DurationS  float64     `json:"duration_s"`
	WarmupS    float64     `json:"warmup_s"`
	WallS      float64     `json:"wall_s"`
	AllocsNote string      `json:"allocs_note"`
	Rows       []jsonRow   `json:"rows"`
	Notes      []string    `json:"notes"`
	Problems   []string    `json:"problems"`
	Checks     []jsonCheck `json:"checks"`
	// Propagation and Heap are null when not measured.
	Propagation *jsonPropagation `json:"propagation"`
	Heap        *jsonHeap        `json:"heap"`
}

type jsonRow struct {
	Target        Target   `json:"target"`
	Variant       Variant  `json:"variant,omitempty"`
	Conns         int      `json:"conns"`
	Method        string   `json:"method"`
	Requests      int64    `json:"requests"`
	Errors        int64    `json:"errors"`
	FirstError    string   `json:"first_error,omitempty"`
	ElapsedS      float64  `json:"elapsed_s"`
	ReqPerS       float64  `json:"req_per_s"`
	P50us         float64  `json:"p50_us"`
	P99us         float64  `json:"p99_us"`
	P999us        float64  `json:"p999_us"`
	MaxUs         float64  `json:"max_us"`
	Samples       int      `json:"samples"`
	Dropped       int64    `json:"dropped_samples"`
	UpstreamCalls uint64   `json:"upstream_calls"`
	CPUPerReqUs   float64  `json:"cpu_us_per_req"`
	AllocsPerReq  float64  `json:"allocs_per_req"`
	BytesPerReq   float64  `json:"bytes_per_req"`
	Ratio         *float64 `json:"ratio_vs_baseline"`
	P50DeltaUs    *float64 `json:"p50_delta_us"`
}

type jsonCheck struct {
	Name    string  `json:"name"`
	Variant Variant `json:"variant"`
	Value   string  `json:"value"`
	Pass    bool    `json:"pass"`
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{
		GoVersion: r.GoVersion, GOOS: r.GOOS, GOARCH: r.GOARCH, GOMAXPROCS: r.GOMAXPROCS, NumCPU: r.NumCPU,
		DurationS: r.Duration.Seconds(), WarmupS: r.Warmup.Seconds(), WallS: r.Wall.Seconds(),
		AllocsNote: AllocsNote, Rows: []jsonRow{}, Notes: append([]string{}, r.Notes...), Checks: []jsonCheck{},
		Problems: append([]string{}, r.Problems()...),
	}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, toJSONRow(row))
	}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, jsonCheck(c))
	}
	out.Propagation, out.Heap = r.jsonFigures()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func toJSONRow(row Row) jsonRow {
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	j := jsonRow{
		Target: row.Target, Variant: row.Variant, Conns: row.Conns, Method: row.Method,
		Requests: row.Requests, Errors: row.Errors, FirstError: row.FirstError,
		ElapsedS: row.Elapsed.Seconds(), ReqPerS: row.RequestsPerSecond(),
		P50us: us(row.Latencies.P50), P99us: us(row.Latencies.P99), P999us: us(row.Latencies.P999),
		MaxUs: us(row.Latencies.Max), Samples: row.Latencies.Samples, Dropped: row.Dropped, UpstreamCalls: row.UpstreamCalls,
		CPUPerReqUs: us(row.CPUPerRequest), AllocsPerReq: row.AllocsPerRequest, BytesPerReq: row.BytesPerRequest,
	}
	if row.HasBaseline {
		ratio, delta := row.Ratio, us(row.P50Delta)
		j.Ratio, j.P50DeltaUs = &ratio, &delta
	}
	return j
}

// formatDuration prints a latency in µs below 1 ms, in ms above.
func formatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", ms)
	}
	return fmt.Sprintf("%.1fms", ms)
}

func signedDuration(d time.Duration) string {
	if d < 0 {
		return "-" + formatDuration(-d)
	}
	return "+" + formatDuration(d)
}

// groupThousands prints v rounded, with thin separators: 12,345.
func groupThousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// roundsLabel says how the runs were split.
func roundsLabel(n int) string {
	if n <= 1 {
		return "one round"
	}
	return fmt.Sprintf("%d interleaved rounds", n)
}
