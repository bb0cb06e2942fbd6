package main

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/cmd/capgate/internal/loadtest"
)

func TestMissedTargets(t *testing.T) {
	pass := loadtest.Check{Name: "capgate ≥ 0.90× baseline", Variant: loadtest.VariantMemory, Value: "0.95×", Pass: true}
	fail := loadtest.Check{Name: "issuance ≥ 10,000/s", Variant: loadtest.VariantMemory, Value: "6,360/s"}
	tests := []struct {
		name   string
		checks []loadtest.Check
		want   string
	}{
		{"none", nil, ""},
		{"all pass", []loadtest.Check{pass}, ""},
		{"one missed", []loadtest.Check{pass, fail}, "1 target(s) missed: issuance ≥ 10,000/s (memory): 6,360/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := missedTargets(tt.checks)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("missedTargets() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("missedTargets() = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestBenchCheckWithoutTargets: a run that measures no target has nothing
// to miss, so --check exits 0 (no timing is asserted).
func TestBenchCheckWithoutTargets(t *testing.T) {
	code, stdout, stderr := benchRun(t, "--quick", "--duration", "100ms", "--conns", "1", "--only", "baseline", "--check")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
