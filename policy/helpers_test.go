package policy_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// testCatalog is the quickstart catalog plus a legacy agent (crm) for
// ambient rules and a second A2E host.
func testCatalog() policy.Catalog {
	cat := policytest.QuickstartCatalog()
	cat.Agents["crm"] = policy.AgentCatalog{
		Legacy: true,
		Skills: map[string]string{"lookup_customer": "read", "update_customer": "write", "delete_customer": "delete"},
	}
	cat.A2EHosts["sandbox"] = policy.A2EHostCatalog{Capabilities: policy.A2ECapabilityNames()}
	return cat
}

// mustLoad loads a policy file from testdata against testCatalog.
func mustLoad(t testing.TB, path string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, filepath.Base(path), testCatalog())
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return p
}

// golden compares got with the golden file, rewriting it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s mismatch (run go test -update after checking the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
