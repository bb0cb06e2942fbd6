package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/cmd/capgate/internal/loadtest"
)

// benchRun runs `capgate bench` in-process.
func benchRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), append([]string{"bench"}, args...), testEnv("", &out, &errb))
	return code, out.String(), errb.String()
}

// tableRows returns the table's data rows by target: the lines between the
// header and the first blank line.
func tableRows(t *testing.T, table string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	in := false
	for line := range strings.SplitSeq(table, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "target":
			in = true
		case in && len(f) == 0:
			return rows
		case in:
			rows[f[0]] = f
		}
	}
	return rows
}

func TestBenchQuickTable(t *testing.T) {
	code, stdout, stderr := benchRun(t, "--quick", "--duration", "200ms", "--conns", "2", "--variants", "memory")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "loadtest plan: 7 runs") {
		t.Errorf("the plan is not printed first:\n%s", stderr)
	}
	rows := tableRows(t, stdout)
	for _, target := range []string{"upstream", "baseline", "capgate", "mcp", "issuance", "issuance-catalog", "attenuation"} {
		f, ok := rows[target]
		if !ok {
			t.Errorf("table has no %s row:\n%s", target, stdout)
			continue
		}
		// target variant conns req/s p50 p99 p99.9 cpu/req allocs/req B/req errors ×baseline Δp50
		if len(f) < 13 || f[10] != "0" || runtime.GOOS == "linux" && f[7] == "-" {
			t.Errorf("%s row %q: want 13 columns, a CPU time and 0 errors", target, f)
		}
	}
	if strings.Contains(stdout, "!!!") {
		t.Errorf("the table flags errors:\n%s", stdout)
	}
}

func TestBenchQuickJSON(t *testing.T) {
	code, stdout, stderr := benchRun(t, "--quick", "--duration", "100ms", "--warmup", "0", "--conns", "1",
		"--variants", "memory", "--only", "capgate", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep struct {
		Rows []struct {
			Target   string  `json:"target"`
			Requests int64   `json:"requests"`
			Errors   int64   `json:"errors"`
			ReqPerS  float64 `json:"req_per_s"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Target != "capgate" || rep.Rows[0].Requests == 0 || rep.Rows[0].Errors != 0 {
		t.Fatalf("--only capgate rows = %+v, want one capgate row with requests and no errors", rep.Rows)
	}
}

// TestBenchWorld: with a 16 KiB answer naming the capability's ids and a
// catalog of 1,000, the invoke path runs without a failed request, every
// call reaching the upstream.
func TestBenchWorld(t *testing.T) {
	code, stdout, stderr := benchRun(t, "--quick", "--duration", "100ms", "--warmup", "0", "--conns", "1",
		"--variants", "memory", "--only", "capgate", "--answer-kib", "16", "--ids-per-kib", "12.8", "--catalog", "1000", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var rep struct {
		Rows []struct {
			Requests    int64   `json:"requests"`
			Errors      int64   `json:"errors"`
			BytesPerReq float64 `json:"bytes_per_req"`
		} `json:"rows"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Requests == 0 || rep.Rows[0].Errors != 0 || len(rep.Problems) != 0 {
		t.Fatalf("rows %+v, problems %q", rep.Rows, rep.Problems)
	}
	if rep.Rows[0].BytesPerReq < 16<<10 {
		t.Errorf("%.0f B allocated per request: the 16 KiB answer was not carried", rep.Rows[0].BytesPerReq)
	}
}

func TestBenchUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"help", []string{"--help"}, 0, ""},
		{"bad conns", []string{"--conns", "1,x"}, 2, "--conns"},
		{"zero conns", []string{"--conns", "0"}, 2, "--conns"},
		{"duplicate conns", []string{"--conns", "1,1"}, 2, "listed twice"},
		{"unknown variant", []string{"--variants", "memory,etcd"}, 2, "unknown variant"},
		{"unknown target", []string{"--only", "everything"}, 2, "unknown target"},
		{"negative duration", []string{"--duration", "-1s"}, 2, "--duration"},
		{"stray argument", []string{"now"}, 2, "unexpected argument"},
		{"unknown flag", []string{"--fast"}, 2, "fast"},
		{"negative answer", []string{"--answer-kib", "-1"}, 2, "answer of -1 KiB"},
		{"ids without an answer", []string{"--ids-per-kib", "12.8"}, 2, "ids per KiB need an answer size"},
		{"too many ids", []string{"--answer-kib", "4", "--ids-per-kib", "100"}, 2, "100 ids per KiB is outside"},
		{"catalog of one", []string{"--catalog", "1"}, 2, "catalog of 1 is outside"},
		{"ids not a number", []string{"--ids-per-kib", "many"}, 2, "ids-per-kib"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := benchRun(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tt.wantCode, stderr)
			}
			if tt.wantErr != "" && !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q does not mention %q", stderr, tt.wantErr)
			}
			if tt.wantCode == 0 && !strings.Contains(stdout, "usage:") {
				t.Errorf("--help printed %q", stdout)
			}
		})
	}
}

func TestBenchCPUProfile(t *testing.T) {
	code, _, stderr := benchRun(t, "--quick", "--duration", "50ms", "--warmup", "0", "--conns", "1",
		"--variants", "memory", "--only", "upstream", "--cpuprofile", t.TempDir()+"/no/such/dir/cpu.pprof")
	if code != 1 || !strings.Contains(stderr, "--cpuprofile") {
		t.Fatalf("exit %d, stderr %q: want 1 and a --cpuprofile error", code, stderr)
	}
}

// TestBenchDurationText: --help, the README and BENCHMARKS.md give the
// same duration for the default run, and it covers the plan's load time.
func TestBenchDurationText(t *testing.T) {
	o := loadtest.Options{}.WithDefaults()
	load := o.Budget(o.Plan(loadtest.Variants()))
	if want := fmt.Sprintf("about 105 s: %d s of load", int(load.Seconds())); !strings.Contains(benchUsage, want) || load > 105*time.Second {
		t.Errorf("bench --help does not say %q (the default plan loads for %v)", want, load)
	}
	for _, doc := range []string{"../../README.md", "../../BENCHMARKS.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "capgate bench` (about 105 s)") && !strings.Contains(string(data), "# about 105 s") {
			t.Errorf("%s does not give the default run as about 105 s", doc)
		}
	}
	code, out, _ := benchRun(t, "--quick", "--duration", "100ms", "--conns", "1", "--variants", "memory")
	if code != 0 || strings.Contains(out, "issue") {
		t.Errorf("exit %d; the table refers to an issue:\n%s", code, out)
	}
}
