package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const policyDiffConfig = "../../deploy/examples/quickstart/capgate.yaml"

// quickstartVariant writes the quickstart policy with old replaced by new.
func quickstartVariant(t *testing.T, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(policyCmdFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("the quickstart policy no longer holds %q", old)
	}
	path := filepath.Join(t.TempDir(), "candidate.yaml")
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Known changes of the quickstart policy.
const (
	contractorsOps = "    operations: [retrieve, list]\n    resources: {collection: reports}\n"
	financeDepth   = "    max_ttl: 1h\n    max_delegation_depth: 2\n"
)

// TestPolicyDiffQuickstart runs the real `capgate policy diff` on the
// quickstart config and policy: against itself, with a widening change
// and with a narrowing one.
func TestPolicyDiffQuickstart(t *testing.T) {
	widened := quickstartVariant(t, contractorsOps, "    operations: [retrieve, search, list]\n    resources: {collection: reports}\n")
	narrowed := quickstartVariant(t, financeDepth, "    max_ttl: 30m\n    max_delegation_depth: 1\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stdout   []string
		stderr   string
	}{
		{"itself", []string{policyCmdFile, policyCmdFile, "--tests", policyCmdTests}, 0,
			[]string{"0 widening(s), 0 narrowing(s)", "no decision differs."}, ""},
		{"widening", []string{policyCmdFile, widened}, policyDiffWidens, []string{
			"1 widening(s), 0 narrowing(s)", "rule contractors-read-reports (new policy)",
			"+ WIDENS   documents documents:read: operations +search (now retrieve,search,list)",
			"user:alice@example.com [contractors]; group contractors;",
		}, "widens what"},
		{"narrowing", []string{policyCmdFile, narrowed, "--tests", policyCmdTests}, 0, []string{
			"0 widening(s), 2 narrowing(s)", "rule finance-read-reports (new policy)",
			"- narrows  documents documents:read: lifetime 1h0m0s → 30m0s",
			"delegation depth 2 → 1", "user:alice@example.com issuer dev [finance]",
		}, ""},
		{"narrowing seen backwards widens", []string{narrowed, policyCmdFile}, policyDiffWidens,
			[]string{"+ WIDENS   documents documents:read: delegation depth 1 → 2"}, "widens what"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"policy", "diff", "--config", policyDiffConfig, "--now", policyCmdNow}, tc.args...)
			code, out, errOut := runCmd(t, args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, tc.stderr) || (tc.stderr == "" && errOut != "") {
				t.Errorf("stderr %q, want %q", errOut, tc.stderr)
			}
		})
	}
}

func TestPolicyDiffJSON(t *testing.T) {
	widened := quickstartVariant(t, contractorsOps, "    operations: [retrieve, search, list]\n    resources: {collection: reports}\n")
	code, out, _ := runCmd(t, "policy", "diff", "--json", "--config", policyDiffConfig, "--now", policyCmdNow, policyCmdFile, widened)
	var r struct {
		Changes []struct {
			Direction, Rule, RuleIn, Subject, What string
			Principals                             []struct{ ID string }
		}
	}
	if code != policyDiffWidens || json.Unmarshal([]byte(out), &r) != nil || len(r.Changes) != 1 {
		t.Fatalf("exit %d, report:\n%s", code, out)
	}
	if c := r.Changes[0]; c.Direction != "widens" || c.Rule != "contractors-read-reports" || c.RuleIn != "new" || len(c.Principals) == 0 {
		t.Errorf("change = %+v", c)
	}
}

// TestPolicyDiffAudit: the principals and requests of an audit trail join
// the universe; a trail that is not one is an error.
func TestPolicyDiffAudit(t *testing.T) {
	dir := t.TempDir()
	trail := filepath.Join(dir, "audit.jsonl")
	line := `{"agent":"documents","chain":"r1","decision":"issued","event":"capability.issue","grants":["documents:read"],` +
		`"hash":"","prev":"","principal":"user:erin@example.com","purpose":"quarterly close","seq":1,"time":"2025-01-09T11:00:00Z"}` + "\n"
	if err := os.WriteFile(trail, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	widened := quickstartVariant(t, contractorsOps, "    operations: [retrieve, search, list]\n    resources: {collection: reports}\n")
	code, out, _ := runCmd(t, "policy", "diff", "--config", policyDiffConfig, "--now", policyCmdNow, "--audit", trail, policyCmdFile, widened)
	if code != policyDiffWidens || !strings.Contains(out, "user:erin@example.com [contractors]") || !strings.Contains(out, `purpose "quarterly close"`) {
		t.Errorf("exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "policy", "diff", "--config", policyDiffConfig, "--audit", bad, policyCmdFile, policyCmdFile)
	if code != 1 || !strings.Contains(errOut, "line 1") {
		t.Errorf("bad trail: exit %d, stderr %q", code, errOut)
	}
}

func TestPolicyDiffUsage(t *testing.T) {
	for _, args := range [][]string{
		{"policy", "diff", policyCmdFile},
		{"policy", "diff", "--now", "today", policyCmdFile, policyCmdFile},
	} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCmd(t, "policy", "diff", "--config", policyDiffConfig, policyCmdFile, "missing.yaml"); code != 1 {
		t.Errorf("missing NEW: exit %d, want 1", code)
	}
}

func TestReadTrail(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr error
	}{
		{"empty", "", 0, nil},
		{"blank lines", "\n\n", 0, nil},
		{"one event", `{"time":"2025-01-09T11:00:00Z","event":"capability.invoke","seq":3,"chain":"r"}` + "\n", 1, nil},
		{"not json", "{", 0, errTrailLine},
		{"no seq", `{"time":"2025-01-09T11:00:00Z","event":"x"}`, 0, errTrailLine},
		{"bad time", `{"time":"yesterday","event":"x","seq":1}`, 0, errTrailLine},
		{"grants not a list", `{"time":"2025-01-09T11:00:00Z","event":"x","seq":1,"grants":"a"}`, 0, errTrailLine},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readTrail(strings.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) || len(got) != tc.want {
				t.Errorf("readTrail = %d events, %v; want %d, %v", len(got), err, tc.want, tc.wantErr)
			}
		})
	}
}

// FuzzReadTrail: readTrail never panics, and either fails with
// errTrailLine or returns events that each have a time, a name and a seq.
func FuzzReadTrail(f *testing.F) {
	f.Add([]byte(`{"time":"2025-01-09T11:00:00Z","event":"capability.issue","seq":1,"grants":["a"]}` + "\n"))
	f.Add([]byte("{}\n\n[1]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := readTrail(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, errTrailLine) {
				t.Fatalf("error %v does not wrap errTrailLine", err)
			}
			return
		}
		for _, ev := range events {
			if ev.Event == "" || ev.Seq == 0 || ev.Time.IsZero() {
				t.Fatalf("incomplete event %+v", ev)
			}
		}
	})
}
