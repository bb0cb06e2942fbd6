package policy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// TestAttacks tries request shapes an attacker controls against the
// quickstart policy. None may widen what is issued.
func TestAttacks(t *testing.T) {
	p := loadQuickstart(t)
	who := policytest.QuickstartPrincipals()
	bob, alice := who["bob"], who["alice"]
	tests := []struct {
		name    string
		in      policy.Input
		wantOps []string // nil: denied
	}{
		{"wildcard grant", policy.Input{Principal: alice, Agent: "documents", Grants: []string{"*"}}, nil},
		{"wildcard operation", policy.Input{Principal: alice, Agent: "documents", Grants: []string{"documents:read"}, Operations: []string{"*"}}, nil},
		{"case-variant grant", policy.Input{Principal: alice, Agent: "documents", Grants: []string{"Documents:Read"}}, nil},
		{"case-variant agent", policy.Input{Principal: alice, Agent: "Documents", Grants: []string{"documents:read"}}, nil},
		{"case-variant group", policy.Input{Principal: policy.Principal{ID: "user:x", Groups: []string{"Finance"}}, Agent: "documents", Grants: []string{"documents:read"}}, nil},
		{"wildcard group", policy.Input{Principal: policy.Principal{ID: "user:x", Groups: []string{"*"}}, Agent: "documents", Grants: []string{"documents:read"}}, nil},
		{"group with padding", policy.Input{Principal: policy.Principal{ID: "user:x", Groups: []string{"finance "}}, Agent: "documents", Grants: []string{"documents:read"}}, nil},
		{"contractor asks hr via filter only", policy.Input{Principal: bob, Agent: "documents", Grants: []string{"documents:read"},
			Resource: &policy.ResourceQuery{Filter: map[string]string{"collection": "hr"}}}, []string{"retrieve", "list"}},
		{"contractor asks search", policy.Input{Principal: bob, Agent: "documents", Grants: []string{"documents:read"}, Operations: []string{"search", "retrieve"}}, []string{"retrieve"}},
		{"admin through grant list", policy.Input{Principal: alice, Agent: "documents", Grants: []string{"documents:admin", "documents:read"}, Operations: []string{"delete"}}, nil},
		{"write smuggled via requires", policy.Input{Principal: alice, Agent: "documents", Grants: []string{"documents:read", "documents:write"}, Operations: []string{"update"}}, nil},
		{"empty principal", policy.Input{Agent: "documents", Grants: []string{"documents:read"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Now = noon
			d := p.Decide(context.Background(), tc.in)
			var got []string
			for _, gd := range d.Grants {
				got = append(got, gd.Operations...)
				if gd.Grant != "documents:read" {
					t.Errorf("issued %s", gd.Grant)
				}
				if gd.Permits(policy.Resource{Collection: "hr", ID: "salaries-2025"}) {
					t.Errorf("capability can designate hr/salaries-2025")
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.wantOps, ",") {
				t.Errorf("issued operations %v, want %v; reasons %+v", got, tc.wantOps, d.Reasons)
			}
			if !d.Allow && len(d.Reasons) == 0 {
				t.Error("denied without a reason")
			}
		})
	}
}

// TestConditionCostLimit checks that a condition exceeding its cost budget
// makes an allow rule not match and a deny rule match (fail closed).
func TestConditionCostLimit(t *testing.T) {
	const bomb = `principal.groups.all(a, principal.groups.all(b, principal.groups.all(c, a + b + c != "")))`
	doc := `version: 1
rules:
  - id: expensive-deny
    effect: deny
    principals: {groups: [deny-side]}
    agents: [documents]
    grants: [documents:read]
    conditions: ['` + bomb + `']
  - id: expensive-allow
    principals: {any: true}
    agents: [documents]
    grants: [documents:read]
    conditions: ['` + bomb + `']
`
	p, _, err := policy.Load(context.Background(), []byte(doc), "cost.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 100)
	for i := range many {
		many[i] = "g" + strings.Repeat("x", i%7)
	}
	allowSide := p.Decide(context.Background(), policy.Input{Principal: policy.Principal{ID: "u", Groups: many},
		Agent: "documents", Grants: []string{"documents:read"}, Now: noon})
	if allowSide.Allow || !hasPart(allowSide, policy.PartCondition) {
		t.Errorf("expensive allow condition matched: %+v", allowSide)
	}
	denySide := p.Decide(context.Background(), policy.Input{Principal: policy.Principal{ID: "u", Groups: append(many, "deny-side")},
		Agent: "documents", Grants: []string{"documents:read"}, Now: noon})
	if denySide.Allow || len(denySide.Matched) == 0 || denySide.Matched[0].ID != "expensive-deny" {
		t.Errorf("expensive deny condition did not fail closed: %+v", denySide)
	}
	cheap := p.Decide(context.Background(), policy.Input{Principal: policy.Principal{ID: "u", Groups: []string{"a"}},
		Agent: "documents", Grants: []string{"documents:read"}, Now: noon})
	if !cheap.Allow {
		t.Errorf("cheap evaluation of the same condition denied: %+v", cheap.Reasons)
	}
}

func hasPart(d policy.Decision, part string) bool {
	for _, r := range d.Reasons {
		if r.Part == part {
			return true
		}
	}
	return false
}

// TestWildcardPrincipalIsNotAWildcard checks that "*" in a matcher list is
// refused rather than silently matching nobody (or everybody).
func TestWildcardPrincipalIsNotAWildcard(t *testing.T) {
	doc := "version: 1\nrules:\n  - id: r\n    principals: {groups: [\"*\"]}\n    agents: [documents]\n    grants: [documents:read]\n"
	if _, _, err := policy.Load(context.Background(), []byte(doc), "t.yaml", testCatalog()); !errors.Is(err, policy.ErrBadMatcher) {
		t.Errorf("err = %v, want ErrBadMatcher", err)
	}
}
