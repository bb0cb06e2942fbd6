package policy_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

const coveragePolicy = `version: 1
rules:
  - id: finance-weekdays
    principals: {groups: [finance], all_groups: [finance, analysts]}
    agents: [documents]
    grants: [documents:read]
    operations: [retrieve]
    resources: {collection: reports, filter: {quarter: [2025-Q1]}}
    conditions: ['request.purpose != ""', 'principal.claims.level == "senior"']
  - id: approvers
    principals: {ids: [user:alice@example.com], claims: {level: [senior, lead]}}
    agents: [documents]
    grants: [documents:write]
    approval: {approvers: {groups: [security], ids: [user:dave@example.com]}, when: ['request.ttl > duration("1m")']}
a2e:
  - id: lab
    principals: {issuers: [dev]}
    hosts: [lab]
    capabilities: [tools]
    conditions: ['request.capability == "tools"']
`

func TestVocabulary(t *testing.T) {
	p, _, err := policy.Load(context.Background(), []byte(coveragePolicy), "p.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	v := p.Vocabulary()
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"ids", v.IDs, []string{"user:alice@example.com", "user:dave@example.com"}},
		{"issuers", v.Issuers, []string{"dev"}},
		{"groups", v.Groups, []string{"analysts", "finance", "security"}},
		{"collections", v.Collections, []string{"reports"}},
		{"filter quarter", v.Filters["quarter"], []string{"2025-Q1"}},
		{"claim level", v.Claims["level"], []string{"lead", "senior"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if len(v.GroupSets) != 1 || !slices.Equal(v.GroupSets[0], []string{"analysts", "finance"}) {
		t.Errorf("group sets = %q", v.GroupSets)
	}
	merged := v.Merge(policy.Vocabulary{Groups: []string{"finance", "hr"}, Claims: map[string][]string{"level": {"junior"}}})
	if !slices.Equal(merged.Groups, []string{"analysts", "finance", "hr", "security"}) || len(merged.Claims["level"]) != 3 {
		t.Errorf("merge = %+v", merged)
	}
}

func TestCoverage(t *testing.T) {
	ctx := context.Background()
	p, _, err := policy.Load(ctx, []byte(coveragePolicy), "p.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)
	who := policy.Principal{ID: "user:x", Groups: []string{"finance", "analysts"}}
	cov := policy.NewCoverage()
	in := policy.Input{Principal: who, Agent: "documents", Grants: []string{"documents:read"}, Now: now}
	for _, purpose := range []string{"", "audit"} {
		in.Purpose = purpose
		p.DecideCovered(ctx, in, cov)
	}
	p.DecideA2ECovered(ctx, policy.A2EInput{Principal: policy.Principal{ID: "a", Issuer: "dev"}, Host: "lab",
		Capabilities: []string{"tools"}, Now: now}, cov)
	got := p.Coverage(cov)
	if len(got) != 4 {
		t.Fatalf("%d conditions, want 4: %+v", len(got), got)
	}
	want := []struct {
		src         string
		t, f        int
		covered, ap bool
	}{
		{`request.purpose != ""`, 1, 1, true, false},
		{`principal.claims.level == "senior"`, 0, 0, false, false}, // an error: no such claim
		{`request.ttl > duration("1m")`, 0, 0, false, true},
		{`request.capability == "tools"`, 1, 0, false, false},
	}
	for i, w := range want {
		g := got[i]
		if g.Source != w.src || g.True != w.t || g.False != w.f || g.Covered() != w.covered || g.Approval != w.ap || g.Pos == "" {
			t.Errorf("condition %d = %+v, want %+v", i, g, w)
		}
	}
	if got[1].Errors != 1 {
		t.Errorf("missing claim: %d errors, want 1", got[1].Errors)
	}
	if plain := p.Coverage(nil); len(plain) != 4 || plain[0].True != 0 {
		t.Errorf("Coverage(nil) = %+v", plain)
	}
}
