package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, testEnv("", &out, &errb))
	return code, out.String(), errb.String()
}

// testEnv is the process as a test sees it: the given standard streams,
// an empty environment, the real clock and the real catalog loader.
func testEnv(stdin string, stdout, stderr *bytes.Buffer) env {
	return env{stdin: strings.NewReader(stdin), stdout: stdout, stderr: stderr,
		getenv: func(string) string { return "" }, now: time.Now, loadCatalog: loadCatalog}
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

// TestPolicyCommandsWired runs the policy commands through `capgate`, with
// the catalog read from the real quickstart gateway config.
func TestPolicyCommandsWired(t *testing.T) {
	const (
		pol   = "../../deploy/examples/quickstart/policy.yaml"
		table = "../../deploy/examples/quickstart/policy_tests.yaml"
		cfg   = "../../deploy/examples/quickstart/capgate.yaml"
	)
	if code, out, errOut := runCmd(t, "policy", "check", pol, "--config", cfg); code != 0 {
		t.Fatalf("policy check: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "policy", "test", pol, table, "--config", cfg); code != 0 {
		t.Fatalf("policy test: %d\n%s%s", code, out, errOut)
	}
	code, out, _ := runCmd(t, "policy", "explain", pol, "--config", cfg, "--principal", "user:bob@example.com",
		"--group", "contractors", "--agent", "documents", "--grant", "documents:read", "--collection", "hr")
	if !strings.Contains(out, "contractors-never-hr") {
		t.Fatalf("explain (exit %d) does not name the deny rule:\n%s", code, out)
	}
	bad := t.TempDir() + "/bad.yaml"
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - id: r\n    principals: {any: true}\n    agents: [documents]\n    grants: [documents:nope]\n    colour: blue\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "policy", "check", bad, "--config", cfg)
	if code == 0 || !strings.Contains(out+errOut, "documents:nope") || !strings.Contains(out+errOut, "colour") {
		t.Fatalf("broken policy: exit %d, want non-zero naming each problem:\n%s%s", code, out, errOut)
	}
}

// TestKeysAndTokenWired generates a key file and inspects a token with it.
func TestKeysAndTokenWired(t *testing.T) {
	path := t.TempDir() + "/keys.json"
	if code, out, errOut := runCmd(t, "keys", "generate", "--out", path); code != 0 {
		t.Fatalf("keys generate: %d %s%s", code, out, errOut)
	}
	if code, _, _ := runCmd(t, "keys", "generate", "--out", path); code == 0 {
		t.Fatal("keys generate overwrote an existing key file")
	}
	if code, out, errOut := runCmd(t, "keys", "generate", "--out", path, "--rotate"); code != 0 {
		t.Fatalf("keys rotate: %d %s%s", code, out, errOut)
	}
	if code, _, _ := runCmd(t, "token", "inspect", "not-a-token"); code == 0 {
		t.Fatal("token inspect accepted garbage")
	}
}

// TestRevokeCommand revokes alice's capabilities through the admin API of
// a running quickstart world, and says what it revoked in words, or as
// JSON with --json.
func TestRevokeCommand(t *testing.T) {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	code, _, errOut := runCmd(t, "revoke", "--admin", w.AdminURL, "--key", "alice-dev-key", "--principal", "user:bob@example.com")
	if code != 1 || !strings.Contains(errOut, "HTTP 403: admin access required") || !strings.Contains(errOut, "--key") {
		t.Errorf("a non-admin revoke: exit %d, %q; want 1, the 403 and where the credential came from", code, errOut)
	}
	code, out, errOut := runCmd(t, "revoke", "--admin", w.AdminURL, "--key", "admin-dev-key", "--principal", "user:alice@example.com")
	if code != 0 || !regexp.MustCompile(`^revoked every capability of user:alice@example.com issued before \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`).MatchString(out) {
		t.Fatalf("revoke: %d %q %s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "revoke", "--json", "--admin", w.AdminURL, "--key", "admin-dev-key", "--revocation", "rv_x")
	if code != 0 || !strings.Contains(out, `"revoked":true`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("revoke --json: %d %q %s", code, out, errOut)
	}
	if code, _, _ := runCmd(t, "revoke", "--admin", w.AdminURL, "--capability", "a", "--principal", "b"); code != 2 {
		t.Errorf("two targets exited %d, want 2", code)
	}
}

// TestAdminCredentialErrors: a missing credential names the flag and the
// variable that give it; a refused one names where it came from, not the
// admin API's bare 401.
func TestAdminCredentialErrors(t *testing.T) {
	ctx := context.Background()
	w, err := quickstart.Start(ctx, quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, args := range [][]string{{"revoke", "--principal", "p"}, {"approvals", "list"}, {"approvals", "deny", "apr_x", "--reason", "r"}} {
		args = append(args, "--admin", w.AdminURL)
		code, _, errOut := runCmd(t, args...)
		if code != 2 || !strings.Contains(errOut, "no credential for the admin API: pass --key KEY or set CAPGATE_ADMIN_KEY") {
			t.Errorf("capgate %v without a key: exit %d, %q", args, code, errOut)
		}
		code, _, errOut = runCmd(t, append(args, "--key", "wrong-key")...)
		if code != 1 || !strings.Contains(errOut, "does not accept the credential from --key (HTTP 401)") || strings.Contains(errOut, "{") {
			t.Errorf("capgate %v with a wrong key: exit %d, %q", args, code, errOut)
		}
		var out, errb bytes.Buffer
		e := testEnv("", &out, &errb)
		e.getenv = func(k string) string { return map[string]string{"CAPGATE_ADMIN_KEY": "wrong-key"}[k] }
		if code := run(ctx, args, e); code != 1 || !strings.Contains(errb.String(), "from $CAPGATE_ADMIN_KEY") {
			t.Errorf("capgate %v with a wrong $CAPGATE_ADMIN_KEY: exit %d, %q", args, code, errb.String())
		}
	}
}

// TestAuditVerifyAfterDemo runs the demo with an audit file, verifies the
// chain with `capgate audit verify`, then tampers with one event.
func TestAuditVerifyAfterDemo(t *testing.T) {
	path := t.TempDir() + "/audit.jsonl"
	if code, out, errOut := runCmd(t, "demo", "--audit", path); code != 0 {
		t.Fatalf("demo: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "audit", "verify", path)
	if code != 0 || !strings.Contains(out, "chain intact") {
		t.Fatalf("audit verify: %d %s %s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(data), `"decision":"holder_mismatch"`, `"decision":"allowed"`, 1)
	if tampered == string(data) {
		t.Fatal("the demo's audit trail has no holder_mismatch event to tamper with")
	}
	if err := os.WriteFile(path, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCmd(t, "audit", "verify", path); code != 1 {
		t.Fatalf("a tampered trail verified (exit %d)", code)
	}
}
