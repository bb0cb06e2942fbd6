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
	computed := 0
	compute := func() string { computed++; return "diff" }
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
		if got := d.get(tt.key, start.Add(tt.at), compute); got != "diff" || computed != tt.computed {
			t.Fatalf("%s: %q, computed %d times, want %d", tt.name, got, computed, tt.computed)
		}
	}
}
