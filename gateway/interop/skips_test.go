package interop_test

import (
	"os"
	"strings"
	"testing"
)

// TestSkipSummaryChecksWhatTheKitChecks: .ci/test, whose last line says
// what the test run skipped, looks for the kit where jsKit does and
// names the same install command, so that the line cannot drift from
// the skip.
func TestSkipSummaryChecksWhatTheKitChecks(t *testing.T) {
	script, err := os.ReadFile("../../.ci/test")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gateway/interop/js/node_modules/@a2a-js/sdk/package.json", "npm ci --prefix gateway/interop/js", "command -v node", "command -v chromium", "command -v redis-server"} {
		if !strings.Contains(string(script), want) {
			t.Errorf(".ci/test does not check %q", want)
		}
	}
	if !strings.Contains(installHint, "npm ci --prefix gateway/interop/js") {
		t.Errorf("the kit's skip names %q, which .ci/test does not", installHint)
	}
}
