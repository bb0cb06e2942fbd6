package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyReplay replays a trail the quickstart walkthrough wrote: under
// the quickstart policy nothing changes (exit 0); under a narrowed one the
// changes are listed and the exit status is 3; usage errors exit 2.
func TestPolicyReplay(t *testing.T) {
	dir := filepath.Join("..", "..", "policy", "replay", "testdata")
	trail := filepath.Join(dir, "demo.jsonl")
	quick := filepath.Join("..", "..", "deploy", "examples", "quickstart", "policy.yaml")
	cfg := filepath.Join("..", "..", "deploy", "examples", "quickstart", "capgate.yaml")
	tests := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"--audit", trail, quick}, 0, "17 decisions replayed, 0 would change, 3 lack what a replay needs"},
		{[]string{"--audit", trail, "--config", cfg, filepath.Join(dir, "narrowed.yaml")}, 3, "was issued, now denied: no allow rule"},
		{[]string{"--audit", trail, "--json", "--config", cfg, filepath.Join(dir, "narrowed.yaml")}, 3, `"now": "refused"`},
		{[]string{quick}, 2, "--audit FILE is required"},
		{[]string{"--audit", trail}, 2, "missing NEW"},
		{[]string{"--audit", "/nonexistent", quick}, 1, "no such file"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, append([]string{"policy", "replay"}, tt.args...)...)
		if code != tt.wantCode || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("policy replay %v: exit %d, %q %q; want %d and %q", tt.args, code, out, errOut, tt.wantCode, tt.want)
		}
	}
}
