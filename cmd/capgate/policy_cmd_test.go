package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

const (
	policyCmdFile  = "../../deploy/examples/quickstart/policy.yaml"
	policyCmdTests = "../../deploy/examples/quickstart/policy_tests.yaml"
	policyCmdNow   = "2025-01-09T12:00:00Z"
)

// policyCmdRun runs `capgate policy ARGS...` with the quickstart catalog and
// records the config path it was asked to load.
func policyCmdRun(t *testing.T, args ...string) (code int, stdout, stderr, config string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := testEnv("", &out, &errOut)
	e.loadCatalog = func(path string) (policy.Catalog, error) {
		config = path
		return policytest.QuickstartCatalog(), nil
	}
	code = run(context.Background(), append([]string{"policy"}, args...), e)
	return code, out.String(), errOut.String(), config
}

// writePolicyFile writes a policy file, with a capgate.yaml beside it for
// the default --config (the tests' catalog loader does not read it).
func writePolicyFile(t *testing.T, name, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "capgate.yaml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPolicyCheck(t *testing.T) {
	code, out, errOut, config := policyCmdRun(t, "check", policyCmdFile)
	if code != 0 || !strings.Contains(out, "OK, revision") || errOut != "" {
		t.Errorf("check quickstart = %d\n%s%s", code, out, errOut)
	}
	if want := "../../deploy/examples/quickstart/capgate.yaml"; config != want {
		t.Errorf("catalog loaded from %q, want the config beside the policy %q", config, want)
	}
	if _, _, _, config = policyCmdRun(t, "check", "--config", "prod.yaml", policyCmdFile); config != "prod.yaml" {
		t.Errorf("--config not passed: %q", config)
	}
}

// TestPolicyCheckReportsEachProblem is the acceptance case: a typo'd field,
// an unknown grant and a bad CEL expression each appear with line:col.
func TestPolicyCheckReportsEachProblem(t *testing.T) {
	path := writePolicyFile(t, "bad.yaml", `version: 1
rules:
  - id: finance-read
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    max_tll: 1h
  - id: finance-export
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:export]
  - id: finance-cel
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    conditions: ['principal.groups.exists(g, g = "finance")']
`)
	code, out, errOut, _ := policyCmdRun(t, "check", path)
	if code != 1 || out != "" {
		t.Errorf("check = %d, stdout %q", code, out)
	}
	for _, want := range []string{
		path + `:7:5: rules[0].max_tll: unknown field "max_tll" (did you mean "max_ttl"?)`,
		path + `:11:14: rules[1].grants[0]: agent "documents" has no grant "documents:export"`,
		path + `:16:18: rules[2].conditions[0]: condition`,
		"3 problem(s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestPolicyCheckStrict(t *testing.T) {
	path := writePolicyFile(t, "warn.yaml", `version: 1
rules:
  - id: auditors-admin
    principals: {groups: [auditors]}
    agents: [documents]
    grants: [documents:admin]
    operations: [list]
`)
	if code, _, errOut, _ := policyCmdRun(t, "check", path); code != 0 || !strings.Contains(errOut, "warning: grant") {
		t.Errorf("check = %d, stderr %q", code, errOut)
	}
	if code, _, _, _ := policyCmdRun(t, "check", "--strict", path); code != 1 {
		t.Errorf("check --strict = %d, want 1", code)
	}
}

func TestPolicyTest(t *testing.T) {
	code, out, errOut, _ := policyCmdRun(t, "test", policyCmdFile, policyCmdTests)
	if code != 0 || !strings.Contains(out, " passed, 0 failed") {
		t.Errorf("test = %d\n%s%s", code, out, errOut)
	}
	failing := writePolicyFile(t, "tests.yaml", `version: 1
now: 2025-01-09T12:00:00Z
principals:
  bob: {id: user:bob@example.com, groups: [contractors]}
cases:
  - name: bob searches reports
    principal: bob
    request: {agent: documents, grants: [documents:read], operations: [search], collection: reports}
    expect: {allow: true}
  - name: bob reads reports
    principal: bob
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect: {allow: true}
`)
	code, out, _, _ = policyCmdRun(t, "test", policyCmdFile, failing)
	if code != 1 || !strings.Contains(out, "FAIL "+failing+":6: bob searches reports") || !strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("failing table = %d\n%s", code, out)
	}
}

func TestPolicyExplain(t *testing.T) {
	code, out, errOut, _ := policyCmdRun(t, "explain", policyCmdFile, "--principal", "user:bob@example.com",
		"--group", "contractors", "--agent", "documents", "--grant", "documents:read", "--collection", "hr", "--now", policyCmdNow)
	if code != 0 || !strings.Contains(out, `denied by rule "contractors-never-hr"`) || !strings.Contains(out, "decision: DENY") {
		t.Errorf("explain bob hr = %d\n%s%s", code, out, errOut)
	}
	code, out, _, _ = policyCmdRun(t, "explain", "--principal", "user:alice@example.com", "--group", "finance",
		"--agent", "documents", "--grant", "documents:read", "--op", "search", "--filter", "quarter=2025-Q1",
		"--expires", "3h", "--purpose", "Summarize", "--now", policyCmdNow, policyCmdFile)
	if code != 0 || !strings.Contains(out, "ISSUED") || !strings.Contains(out, "capped to 2025-01-09T13:00:00Z") {
		t.Errorf("explain alice = %d\n%s", code, out)
	}
	code, out, _, _ = policyCmdRun(t, "explain", policyCmdFile, "--principal", "user:carol@example.com", "--group", "hr", "--group", "editors",
		"--agent", "documents", "--grant", "documents:read", "--grant", "documents:write", "--collection", "hr", "--now", policyCmdNow)
	if code != 0 || !strings.Contains(out, "would need approval by group security") {
		t.Errorf("explain carol hr write = %d\n%s", code, out)
	}
	code, out, _, _ = policyCmdRun(t, "explain", policyCmdFile, "--principal", "user:bob@example.com",
		"--group", "contractors", "--host", "lab", "--a2e", "tools,memory", "--now", policyCmdNow)
	if code != 0 || !strings.Contains(out, "=> ALLOWED") || !strings.Contains(out, "=> DENIED") {
		t.Errorf("explain a2e = %d\n%s", code, out)
	}
}

func TestPolicyUsageErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"no subcommand", nil, 2},
		{"unknown subcommand", []string{"lint", policyCmdFile}, 2},
		{"check without file", []string{"check"}, 2},
		{"check with two files", []string{"check", policyCmdFile, policyCmdFile}, 2},
		{"unknown flag", []string{"check", "--fast", policyCmdFile}, 2},
		{"test without tests", []string{"test", policyCmdFile}, 2},
		{"explain without principal", []string{"explain", policyCmdFile, "--agent", "documents", "--grant", "documents:read"}, 2},
		{"explain without grant", []string{"explain", policyCmdFile, "--principal", "p", "--agent", "documents"}, 2},
		{"explain bad filter", []string{"explain", policyCmdFile, "--principal", "p", "--agent", "documents", "--grant", "g", "--filter", "quarter"}, 2},
		{"explain bad expires", []string{"explain", policyCmdFile, "--principal", "p", "--agent", "documents", "--grant", "g", "--expires", "soon"}, 2},
		{"explain bad now", []string{"explain", policyCmdFile, "--principal", "p", "--agent", "documents", "--grant", "g", "--now", "today"}, 2},
		{"missing policy file", []string{"check", "does-not-exist.yaml"}, 1},
		{"help", []string{"help"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, errOut, _ := policyCmdRun(t, tc.args...); code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, errOut)
			}
		})
	}
}

// TestPolicyCheckNoConfig: a policy with no capgate.yaml beside it and no
// --config is a usage error that names what to pass.
func TestPolicyCheckNoConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut, config := policyCmdRun(t, "check", path)
	if code != 2 || config != "" || !strings.Contains(errOut, "pass --config PATH") {
		t.Errorf("exit %d, catalog from %q, stderr:\n%s", code, config, errOut)
	}
}

func TestPolicyCatalogError(t *testing.T) {
	var errOut bytes.Buffer
	e := testEnv("", &bytes.Buffer{}, &errOut)
	e.loadCatalog = func(string) (policy.Catalog, error) { return policy.Catalog{}, errors.New("config: no such file") }
	code := run(context.Background(), []string{"policy", "check", policyCmdFile}, e)
	if code != 1 || !strings.Contains(errOut.String(), "config: no such file") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
