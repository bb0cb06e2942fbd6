package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditExport exports a trail the quickstart walkthrough wrote as
// OCSF and CEF, one record per event; a line that is no event stops it
// with exit 1 naming the line; a bad format is a usage error.
func TestAuditExport(t *testing.T) {
	trail := filepath.Join("..", "..", "gateway", "audit", "siem", "testdata", "demo.jsonl")
	b, err := os.ReadFile(trail)
	if err != nil {
		t.Fatal(err)
	}
	events := strings.Count(string(b), "\n")
	broken := filepath.Join(t.TempDir(), "broken.jsonl")
	if err := os.WriteFile(broken, append(append([]byte{}, b[:strings.IndexByte(string(b), '\n')+1]...), "not json\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"--format", "ocsf", "--audit", trail}, 0, `"class_uid":6003`, "exported 37 events as ocsf"},
		{[]string{"--format", "cef", "--audit", trail}, 0, "CEF:0|capgate|capgate|", "exported 37 events as cef"},
		{[]string{"--format", "cef", "--audit", broken}, 1, "CEF:0|", "line 2: siem: not an audit event"},
		{[]string{"--format", "leef", "--audit", trail}, 2, "", "--format must be ocsf or cef"},
		{[]string{"--audit", trail}, 2, "", "--format must be ocsf or cef"},
		{[]string{"--format", "ocsf", "--audit", "/nonexistent/trail"}, 1, "", "no such file"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, append([]string{"audit", "export"}, tt.args...)...)
		if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("audit export %v: exit %d, err %q; want %d, %q", tt.args, code, errOut, tt.wantCode, tt.wantErr)
		}
		if code == 0 && strings.Count(out, "\n") != events {
			t.Errorf("audit export %v: %d records for %d events", tt.args, strings.Count(out, "\n"), events)
		}
	}
}
