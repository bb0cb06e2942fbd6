package policy_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/capgate/capgate/policy"
)

const examplePolicy = `version: 1
rules:
  - id: contractors-never-hr
    effect: deny
    principals: {groups: [contractors]}
    agents: [documents]
    grants: ["*"]
    resources: {collection: hr}
  - id: finance-read-reports
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
    operations: [retrieve, search, list]
    resources: {collection: reports}
    max_ttl: 1h
    max_delegation_depth: 2
a2e:
  - id: finance-lab
    principals: {groups: [finance]}
    hosts: [lab]
    capabilities: [tools, memory]
`

func exampleCatalog() policy.Catalog {
	return policy.Catalog{
		Agents: map[string]policy.AgentCatalog{"documents": {Grants: map[string]policy.Grant{
			"documents:read":  {ID: "documents:read", Operations: []string{"retrieve", "search", "list"}, Attenuable: true},
			"documents:write": {ID: "documents:write", Operations: []string{"create", "update", "delete"}, Attenuable: true, Requires: []string{"documents:read"}},
		}}},
		A2EHosts: map[string]policy.A2EHostCatalog{"lab": {Capabilities: []string{"tools", "memory", "env"}}},
	}
}

// Load a policy and decide a capability request: the issued capability is
// the intersection of the grant, the request and the rule.
func ExamplePolicy_Decide() {
	p, _, err := policy.Load(context.Background(), []byte(examplePolicy), "policy.yaml", exampleCatalog())
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	d := p.Decide(context.Background(), policy.Input{
		Principal: policy.Principal{ID: "user:alice@example.com", Groups: []string{"finance"}},
		Agent:     "documents",
		Grants:    []string{"documents:read"},
		Resource:  &policy.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}},
		Expires:   now.Add(24 * time.Hour),
		Now:       now,
	})
	gd := d.Grants[0]
	fmt.Println(d.Allow, gd.Rule, gd.Operations, gd.Resource, gd.Expires.Format(time.Kitchen), gd.MaxDepth)
	fmt.Println(gd.Permits(policy.Resource{Collection: "reports", ID: "q1-sales", Attributes: map[string]string{"quarter": "2025-Q1"}}))
	fmt.Println(gd.Permits(policy.Resource{Collection: "reports", ID: "q2-financial", Attributes: map[string]string{"quarter": "2025-Q2"}}))
	// Output:
	// true finance-read-reports [retrieve search list] collection=reports quarter=[2025-Q1] 1:00PM 2
	// true
	// false
}

// A denial is a Decision whose reasons name the rule, never an error.
func ExamplePolicy_Decide_denied() {
	p, _, _ := policy.Load(context.Background(), []byte(examplePolicy), "policy.yaml", exampleCatalog())
	d := p.Decide(context.Background(), policy.Input{
		Principal: policy.Principal{ID: "user:bob@example.com", Groups: []string{"contractors"}},
		Agent:     "documents",
		Grants:    []string{"documents:read"},
		Resource:  &policy.ResourceQuery{Collection: "hr"},
		Now:       time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC),
	})
	fmt.Println(d.Allow)
	for _, r := range d.Reasons {
		fmt.Println(r.Rule, r.Part, r.Text)
	}
	// Output:
	// false
	// contractors-never-hr deny denied by rule "contractors-never-hr" (request for collection=hr is inside collection=hr)
}

// Load reports every problem with its position; the error wraps each one.
func ExampleLoad_problems() {
	doc := strings.Replace(examplePolicy, "grants: [documents:read]", "grants: [documents:raed]\n    max_tll: 1h", 1)
	_, problems, err := policy.Load(context.Background(), []byte(doc), "policy.yaml", exampleCatalog())
	for _, pr := range problems {
		fmt.Println(pr)
	}
	fmt.Println(err != nil)
	// Output:
	// policy.yaml:12:14: rules[1].grants[0]: agent "documents" has no grant "documents:raed" (its grants: [documents:read, documents:write])
	// policy.yaml:13:5: rules[1].max_tll: unknown field "max_tll" (did you mean "max_ttl"?) (known fields: agents, approval, conditions, description, effect, grants, id, max_delegation_depth, max_ttl, operations, principals, require_purpose, resources)
	// true
}

// DecideA2E narrows an A2E handshake's agent_caps to what policy allows.
func ExamplePolicy_DecideA2E() {
	p, _, _ := policy.Load(context.Background(), []byte(examplePolicy), "policy.yaml", exampleCatalog())
	d := p.DecideA2E(context.Background(), policy.A2EInput{
		Principal:    policy.Principal{ID: "user:alice@example.com", Groups: []string{"finance"}},
		Host:         "lab",
		Capabilities: []string{"tools", "memory", "env", "chains"},
		Now:          time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC),
	})
	fmt.Println(d.Allowed)
	fmt.Println(d.Denied["chains"])
	// Output:
	// [tools memory]
	// no A2E rule allows capability "chains" on host "lab" for principal "user:alice@example.com" (default deny)
}
