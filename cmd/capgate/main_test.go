package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

// TestDemoWalkthrough runs `capgate demo` in-process: the whole narrated
// story against a real quickstart world, exiting 0 only if every step
// behaved as expected.
func TestDemoWalkthrough(t *testing.T) {
	code, out, errOut := runCmd(t, "demo")
	if code != 0 {
		t.Fatalf("capgate demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Every step behaved as expected.") {
		t.Errorf("walkthrough did not finish:\n%s", out)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"help"}, 0},
		{[]string{"serve"}, 2},
		{[]string{"serve", "--config", "/does/not/exist.yaml"}, 1},
		{[]string{"keys", "hash"}, 2},
		{[]string{"demo", "extra-arg"}, 2},
	}
	for _, tt := range tests {
		if code, _, _ := runCmd(t, tt.args...); code != tt.want {
			t.Errorf("capgate %v exited %d, want %d", tt.args, code, tt.want)
		}
	}
}

func TestKeysHash(t *testing.T) {
	code, out, _ := runCmd(t, "keys", "hash", "alice-dev-key")
	if code != 0 || strings.TrimSpace(out) != "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1" {
		t.Fatalf("keys hash: %d %q", code, out)
	}
}
