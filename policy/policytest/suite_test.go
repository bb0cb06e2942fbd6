package policytest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

const header = "version: 1\nnow: 2025-01-09T12:00:00Z\nprincipals:\n  alice: {id: user:alice@example.com, groups: [finance]}\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr error
	}{
		{"unknown field", header + "cases:\n  - name: x\n    principal: alice\n    requst: {}\n", policytest.ErrSyntax},
		{"bad version", "version: 3\nnow: 2025-01-09T12:00:00Z\n", policytest.ErrVersion},
		{"missing now", "version: 1\n", policytest.ErrSyntax},
		{"no request kind", header + "cases:\n  - name: x\n    principal: alice\n", policytest.ErrCase},
		{"two request kinds", header + "cases:\n  - name: x\n    principal: alice\n    request: {agent: a}\n    a2e: {host: h}\n", policytest.ErrCase},
		{"unnamed case", header + "cases:\n  - principal: alice\n    request: {agent: a}\n", policytest.ErrCase},
		{"unknown principal", header + "cases:\n  - name: x\n    principal: mallory\n    request: {agent: a}\n", policytest.ErrUnknownPrincipal},
		{"bad expires", header + "cases:\n  - name: x\n    principal: alice\n    request: {agent: a, expires: tomorrow}\n", policytest.ErrCase},
		{"bad expires_in", header + "cases:\n  - name: x\n    principal: alice\n    request: {agent: a}\n    expect: {grants: {g: {expires_in: soon}}}\n", policytest.ErrCase},
		{"bad approval wait", header + "cases:\n  - name: x\n    principal: alice\n    request: {agent: a}\n    expect: {grants: {g: {approval: {wait: later}}}}\n", policytest.ErrCase},
		{"not yaml", "version: [\n", policytest.ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := policytest.Parse([]byte(tc.yaml), "t.yaml"); !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestRunCatchesWrongExpectations checks that a table which expects more,
// or less, than the policy does fails, with a message per mismatch.
func TestRunCatchesWrongExpectations(t *testing.T) {
	p := quickstart(t)
	table := header + `  bob: {id: user:bob@example.com, groups: [contractors]}
cases:
  - name: wider than issued
    principal: bob
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect:
      grants:
        documents:read: {rule: finance-read-reports, operations: [retrieve, search, list], max_depth: 2, expires_in: 1h, collection: hr, attenuable: false}
  - name: expects a denial that is an allow
    principal: alice
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect: {allow: false, denied: {documents:read: default}}
  - name: wrong deny rule named
    principal: bob
    request: {agent: documents, grants: [documents:read], collection: hr}
    expect: {denied: {documents:read: nobody-gets-admin}, matched: [finance-read-reports]}
  - name: extra grant issued
    principal: alice
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect: {grants: {}}
  - name: permits and refuses
    principal: alice
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect:
      grants:
        documents:read:
          permits: [{collection: hr, id: salaries-2025}]
          refuses: [{collection: reports, id: q1}]
  - name: a2e wider
    principal: alice
    a2e: {host: lab, capabilities: [tools, env]}
    expect: {allowed: [tools, env], denied: {tools: "", env: finance-lab}}
  - name: ambient
    principal: alice
    ambient: {agent: documents, skill: retrieve_document, method: message/send}
    expect: {allow: true, matched: [x]}
`
	s, err := policytest.Parse([]byte(table), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	results := s.Run(context.Background(), p)
	wantFailures := []int{6, 2, 2, 1, 2, 3, 2}
	for i, r := range results {
		if r.Passed() || len(r.Failures) != wantFailures[i] {
			t.Errorf("%s (%s): %d failures, want %d: %q", r.Case.Name, r.Case.Pos, len(r.Failures), wantFailures[i], r.Failures)
		}
	}
	if results[0].Case.Pos != "t.yaml:7" {
		t.Errorf("case position %q", results[0].Case.Pos)
	}
}

// TestShippedTable runs the quickstart table.
func TestShippedTable(t *testing.T) {
	p := quickstart(t)
	data, err := os.ReadFile("../../deploy/examples/quickstart/policy_tests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := policytest.Parse(data, "policy_tests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Run(context.Background(), p) {
		if !r.Passed() {
			t.Errorf("%s %s: %s", r.Case.Pos, r.Case.Name, strings.Join(r.Failures, "; "))
		}
	}
}

func quickstart(t testing.TB) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile("../../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzParse feeds arbitrary tables to Parse: it must not panic, and a
// parsed table must run.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../../deploy/examples/quickstart/policy_tests.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(header + "cases:\n  - name: x\n    principal: alice\n    a2e: {host: lab}\n"))
	p := quickstart(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := policytest.Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		_ = s.Run(context.Background(), p)
	})
}

// Example runs an expectation table against a policy.
func Example() {
	doc := `version: 1
rules:
  - id: finance-read
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: [retrieve, list]
`
	p, _, _ := policy.Load(context.Background(), []byte(doc), "policy.yaml", policytest.QuickstartCatalog())
	table := header + `cases:
  - name: alice reads
    principal: alice
    request: {agent: documents, grants: [documents:read]}
    expect:
      grants:
        documents:read: {rule: finance-read, operations: [retrieve, list, search]}
`
	s, _ := policytest.Parse([]byte(table), "tests.yaml")
	for _, r := range s.Run(context.Background(), p) {
		fmt.Println(r.Case.Pos, r.Case.Name, r.Passed(), r.Failures)
	}
	// Output:
	// tests.yaml:6 alice reads false [grant documents:read operations = [list retrieve], want [list retrieve search]]
}

// TestApprovalExpectations checks that a case must state the approval a
// grant waits for, and names its approvers exactly.
func TestApprovalExpectations(t *testing.T) {
	p := quickstart(t)
	table := header + `  carol: {id: user:carol@example.com, groups: [hr, editors]}
cases:
  - name: silent about approval
    principal: carol
    request: {agent: documents, grants: [documents:read, documents:write], collection: hr}
    expect: {grants: {documents:read: {}, documents:write: {}}}
  - name: wrong approvers and wait
    principal: carol
    request: {agent: documents, grants: [documents:read, documents:write], collection: hr}
    expect: {grants: {documents:read: {}, documents:write: {approval: {groups: [hr], wait: 2h}}}}
  - name: expects approval where none is needed
    principal: alice
    request: {agent: documents, grants: [documents:read], collection: reports}
    expect: {grants: {documents:read: {approval: {groups: [security]}}}}
  - name: right
    principal: carol
    request: {agent: documents, grants: [documents:read, documents:write], collection: hr}
    expect: {grants: {documents:read: {}, documents:write: {approval: {groups: [security], wait: 1h}}}}
`
	s, err := policytest.Parse([]byte(table), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run(context.Background(), p)
	want := []string{"which the case does not expect", "approver groups", "issued without approval", ""}
	for i, r := range res {
		got := strings.Join(r.Failures, "; ")
		if (want[i] == "") != r.Passed() || !strings.Contains(got, want[i]) {
			t.Errorf("case %q: failures %q, want %q", r.Case.Name, got, want[i])
		}
	}
	if !strings.Contains(strings.Join(res[1].Failures, ";"), "waits at most 1h0m0s, want 2h") {
		t.Errorf("wrong wait not reported: %v", res[1].Failures)
	}
}
