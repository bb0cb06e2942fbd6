package loadtest

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func us(n float64) time.Duration { return time.Duration(n * float64(time.Microsecond)) }

// sampleReport is a fixed report, as Run would build it.
func sampleReport() *Report {
	r := &Report{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2, NumCPU: 2,
		Duration: 5 * time.Second, Warmup: time.Second, Rounds: 5, Notes: []string{"redis: throwaway redis-server"}}
	res := func(n int64, p50, p99, p999 float64, allocs float64) Result {
		return Result{Requests: n, Elapsed: 5 * time.Second, AllocsPerRequest: allocs, BytesPerRequest: allocs * 100,
			CPUPerRequest: time.Duration(allocs) * 400 * time.Nanosecond,
			Latencies:     Latencies{Samples: int(n), P50: us(p50), P99: us(p99), P999: us(p999), Max: us(p999 * 2)}}
	}
	r.Add(Step{Target: TargetUpstream, Conns: 1}, res(100_000, 40, 90, 400, 77), 100_500)
	r.Add(Step{Target: TargetBaseline, Conns: 1}, res(50_000, 95, 300, 1500, 187), 50_300)
	r.Add(Step{Target: TargetCapgate, Variant: VariantMemory, Conns: 1}, res(40_000, 150, 600, 12_500, 446), 40_200)
	r.Add(Step{Target: TargetBaseline, Conns: 64}, res(60_000, 5000, 9000, 20_000, 185), 60_100)
	r.Add(Step{Target: TargetCapgate, Variant: VariantMemory, Conns: 64}, res(57_000, 5400, 9800, 25_000, 444), 57_100)
	r.Add(Step{Target: TargetMCP, Variant: VariantMemory, Conns: 64}, res(54_000, 5600, 10_000, 26_000, 520), 54_100)
	bad := res(30_000, 6000, 11_000, 30_000, 470)
	bad.Errors, bad.FirstError = 12, "loadtest: JSON-RPC error response: {\"code\":-32049}"
	r.Add(Step{Target: TargetCapgate, Variant: VariantRedis, Conns: 64}, bad, 29_990)
	r.Add(Step{Target: TargetIssuance, Variant: VariantMemory, Conns: 64}, res(60_000, 5000, 9000, 12_000, 480), 60_100)
	r.Add(Step{Target: TargetIssuanceCatalog, Variant: VariantMemory, Conns: 64}, res(65_000, 4500, 8000, 11_000, 300), 0)
	r.Add(Step{Target: TargetAttenuation, Variant: VariantMemory, Conns: 64}, res(70_000, 4000, 8000, 11_000, 440), 0)
	r.Propagation = &Propagation{Trials: 200, Load: 8, LoadCalls: 41_000,
		Refused: Latencies{Samples: 200, P50: us(1480), P99: us(5580), Max: us(6100)},
		Revoke:  Latencies{Samples: 200, P50: us(970), P99: us(5070), Max: us(5600)}, LateAllows: 1, LateTrials: 1}
	r.Heap = &Heap{Capabilities: 20_000, BytesPerCapability: 987.5}
	r.Finish(90 * time.Second)
	return r
}

func TestReportTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden.txt", b.Bytes())
}

func TestReportJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden.json", b.Bytes())
}

func TestReportRatios(t *testing.T) {
	r := sampleReport()
	tests := []struct {
		row       int
		wantRatio float64
		wantDelta time.Duration
		wantBase  bool
	}{
		{0, 2, us(40 - 95), true},
		{1, 1, 0, true},
		{2, 0.8, us(150 - 95), true},
		{4, 0.95, us(400), true},
		{5, 0.9, us(600), true}, // the MCP front's tools/call is proxied: a ratio
		{7, 0, 0, false},        // issuance is not an invoke: no ratio
		{8, 0, 0, false},
		{9, 0, 0, false},
	}
	for _, tt := range tests {
		row := r.Rows[tt.row]
		if row.HasBaseline != tt.wantBase || row.P50Delta != tt.wantDelta || !near(row.Ratio, tt.wantRatio) {
			t.Errorf("%s: base %v ratio %v Δp50 %v, want %v %v %v", row.label(), row.HasBaseline, row.Ratio, row.P50Delta,
				tt.wantBase, tt.wantRatio, tt.wantDelta)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A run is invalid when requests failed, or when invoke requests
// "succeeded" without reaching the upstream (a gateway answering on its
// own would otherwise look fast).
func TestReportProblems(t *testing.T) {
	r := &Report{}
	ok := Result{Requests: 100, Elapsed: time.Second}
	r.Add(Step{Target: TargetCapgate, Variant: VariantMemory, Conns: 1}, ok, 100)
	r.Add(Step{Target: TargetAttenuation, Variant: VariantMemory, Conns: 1}, ok, 0) // never forwarded: fine
	if p := r.Problems(); len(p) != 0 {
		t.Fatalf("clean report has problems: %q", p)
	}
	r.Add(Step{Target: TargetCapgate, Variant: VariantSynced, Conns: 1}, ok, 60)
	failed := ok
	failed.Errors, failed.FirstError = 3, "boom"
	r.Add(Step{Target: TargetBaseline, Conns: 1}, failed, 100)
	p := strings.Join(r.Problems(), "\n")
	for _, want := range []string{"capgate/synced/1: 100 requests succeeded but the upstream saw only 60 calls",
		"baseline/-/1: 3 of 100 requests failed; first: boom"} {
		if !strings.Contains(p, want) {
			t.Errorf("problems %q do not say %q", p, want)
		}
	}
}

func TestReportChecks(t *testing.T) {
	var got []string
	for _, c := range sampleReport().Checks {
		verdict := "FAIL"
		if c.Pass {
			verdict = "pass"
		}
		got = append(got, verdict+" "+string(c.Variant)+" "+c.Value)
	}
	want := "pass memory 1.58× (+55.0µs)|pass memory 0.95×|pass memory 1.08× (13,000/s)|" +
		"pass synced 5.58ms|FAIL synced 1 late allows|pass memory 988 B"
	if strings.Join(got, "|") != want {
		t.Fatalf("checks %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestRatioTargets: each target of the default plan is a ratio to the
// baseline of the same run, and misses on the side it bounds.
func TestRatioTargets(t *testing.T) {
	res := func(n int64, p50 float64) Result {
		return Result{Requests: n, Elapsed: time.Second, Latencies: Latencies{Samples: int(n), P50: us(p50)}}
	}
	tests := []struct {
		name                      string
		capP50, capRate, issuance float64
		want                      string
	}{
		{"all met", 190, 7000, 5000, "pass|pass|pass"},
		{"p50 over twice the baseline's", 210, 7000, 5000, "FAIL|pass|pass"},
		{"small call under 0.7x", 150, 6900, 5000, "pass|FAIL|pass"},
		{"issuance under 0.5x", 150, 8000, 4900, "pass|pass|FAIL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{}
			r.Add(Step{Target: TargetBaseline, Conns: 1}, res(5000, 100), 5000)
			r.Add(Step{Target: TargetCapgate, Variant: VariantMemory, Conns: 1}, res(4000, tt.capP50), 4000)
			r.Add(Step{Target: TargetBaseline, Conns: 64}, res(10_000, 3000), 10_000)
			r.Add(Step{Target: TargetCapgate, Variant: VariantMemory, Conns: 64}, res(int64(tt.capRate), 4000), uint64(tt.capRate))
			r.Add(Step{Target: TargetIssuanceCatalog, Variant: VariantMemory, Conns: 64}, res(int64(tt.issuance), 4000), 0)
			r.Finish(time.Second)
			var got []string
			for _, c := range r.Checks {
				got = append(got, map[bool]string{true: "pass", false: "FAIL"}[c.Pass])
			}
			if strings.Join(got, "|") != tt.want {
				t.Fatalf("checks %v, want %s", r.Checks, tt.want)
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{formatDuration(us(12.34)), "12.3µs"},
		{formatDuration(us(999.9)), "999.9µs"},
		{formatDuration(us(1234)), "1.23ms"},
		{formatDuration(us(12_345)), "12.3ms"},
		{signedDuration(-us(5)), "-5.0µs"},
		{signedDuration(0), "+0.0µs"},
		{groupThousands(0), "0"},
		{groupThousands(999.6), "1,000"},
		{groupThousands(1234567), "1,234,567"},
		{groupThousands(-12345), "-12,345"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
