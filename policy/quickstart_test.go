package policy_test

import (
	"context"
	"os"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

const (
	quickstartPolicy = "../deploy/examples/quickstart/policy.yaml"
	quickstartTests  = "../deploy/examples/quickstart/policy_tests.yaml"
)

// loadQuickstart loads the shipped quickstart policy against the quickstart
// catalog.
func loadQuickstart(t testing.TB) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(quickstartPolicy)
	if err != nil {
		t.Fatal(err)
	}
	p, problems, err := policy.Load(context.Background(), data, "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatalf("quickstart policy does not load: %v", err)
	}
	for _, pr := range problems {
		t.Errorf("quickstart policy has a problem: %v", pr)
	}
	return p
}

// TestQuickstartTable runs the shipped expectation table: the quickstart
// quickstart policy does what the table says.
func TestQuickstartTable(t *testing.T) {
	p := loadQuickstart(t)
	data, err := os.ReadFile(quickstartTests)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := policytest.Parse(data, "policy_tests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(suite.Cases) < 20 {
		t.Fatalf("only %d cases", len(suite.Cases))
	}
	for _, r := range suite.Run(context.Background(), p) {
		for _, f := range r.Failures {
			t.Errorf("%s: %s: %s", r.Case.Pos, r.Case.Name, f)
		}
	}
}
