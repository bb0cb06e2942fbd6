package console

import (
	"testing"
	"time"
)

// TestShadowDiffsKept: the diff of two revisions is computed once and
// shown again until either revision changes or shadowDiffTTL passes.
func TestShadowDiffsKept(t *testing.T) {
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var d shadowDiffs
	computed, fail := 0, false
	compute := func() (string, bool) { computed++; return "diff", !fail }
	tests := []struct {
		name     string
		key      string
		at       time.Duration
		computed int
	}{
		{"first view", "r1 c1", 0, 1},
		{"again, same revisions", "r1 c1", 30 * time.Second, 1},
		{"the candidate reloaded", "r1 c2", 31 * time.Second, 2},
		{"the enforced policy reloaded", "r2 c2", 32 * time.Second, 3},
		{"a minute on", "r2 c2", 32*time.Second + shadowDiffTTL, 4},
		{"the clock stepped back", "r2 c2", 0, 5},
	}
	for _, tt := range tests {
		fail = false
		if got := d.get(tt.key, start.Add(tt.at), compute); got != "diff" || computed != tt.computed {
			t.Fatalf("%s: %q, computed %d times, want %d", tt.name, got, computed, tt.computed)
		}
	}
	// A diff that could not be computed is not kept.
	fail = true
	d.get("r3 c3", start, compute)
	fail = false
	if d.get("r3 c3", start, compute); computed != 7 {
		t.Fatalf("a failed diff was kept: computed %d times, want 7", computed)
	}
}
