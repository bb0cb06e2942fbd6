package policy

import (
	"encoding/json"
	"testing"
)

func TestMatcherMatches(t *testing.T) {
	alice := Principal{ID: "user:alice", Issuer: "https://idp", Groups: []string{"finance", "staff"},
		Claims: map[string]any{"dept": "fin", "level": float64(3), "admin": true, "roles": []any{"a", "b"}, "nested": []any{[]any{"x"}}, "num": json.Number("7")}}
	tests := []struct {
		name string
		m    matcher
		want bool
	}{
		{"any", matcher{any: true}, true},
		{"id", matcher{ids: []string{"user:bob", "user:alice"}}, true},
		{"other id", matcher{ids: []string{"user:bob"}}, false},
		{"id prefix is not a match", matcher{ids: []string{"user:ali"}}, false},
		{"issuer", matcher{issuers: []string{"https://idp"}}, true},
		{"other issuer", matcher{issuers: []string{"https://idp/"}}, false},
		{"groups any of", matcher{groups: []string{"hr", "finance"}}, true},
		{"groups none", matcher{groups: []string{"hr"}}, false},
		{"group case matters", matcher{groups: []string{"Finance"}}, false},
		{"all groups", matcher{allGroups: []string{"finance", "staff"}}, true},
		{"all groups missing one", matcher{allGroups: []string{"finance", "hr"}}, false},
		{"string claim", matcher{claims: map[string][]string{"dept": {"fin"}}}, true},
		{"number claim", matcher{claims: map[string][]string{"level": {"3"}}}, true},
		{"bool claim", matcher{claims: map[string][]string{"admin": {"true"}}}, true},
		{"json number claim", matcher{claims: map[string][]string{"num": {"7"}}}, true},
		{"list claim", matcher{claims: map[string][]string{"roles": {"b"}}}, true},
		{"nested list claim does not match", matcher{claims: map[string][]string{"nested": {"x"}}}, false},
		{"missing claim", matcher{claims: map[string][]string{"team": {""}}}, false},
		{"every criterion must hold", matcher{groups: []string{"finance"}, ids: []string{"user:bob"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.matches(&alice); got != tc.want {
				t.Errorf("matches = %t, want %t", got, tc.want)
			}
			if got := tc.m.whyNot(&alice) == ""; got != tc.want {
				t.Errorf("whyNot disagrees with matches: %q", tc.m.whyNot(&alice))
			}
		})
	}
}

func TestMatcherSubsumes(t *testing.T) {
	tests := []struct {
		name       string
		outer, in  matcher
		wantResult bool
	}{
		{"any covers groups", matcher{any: true}, matcher{groups: []string{"g"}}, true},
		{"groups cover subset", matcher{groups: []string{"a", "b"}}, matcher{groups: []string{"a"}}, true},
		{"groups do not cover superset", matcher{groups: []string{"a"}}, matcher{groups: []string{"a", "b"}}, false},
		{"groups cover all_groups member", matcher{groups: []string{"a"}}, matcher{allGroups: []string{"a", "b"}}, true},
		{"all_groups need all", matcher{allGroups: []string{"a", "b"}}, matcher{groups: []string{"a"}}, false},
		{"all_groups subset", matcher{allGroups: []string{"a"}}, matcher{allGroups: []string{"a", "b"}}, true},
		{"ids", matcher{ids: []string{"x", "y"}}, matcher{ids: []string{"x"}, groups: []string{"g"}}, true},
		{"narrower never covers any", matcher{groups: []string{"a"}}, matcher{any: true}, false},
		{"claims", matcher{claims: map[string][]string{"d": {"1", "2"}}}, matcher{claims: map[string][]string{"d": {"1"}}}, true},
		{"claims missing", matcher{claims: map[string][]string{"d": {"1"}}}, matcher{groups: []string{"a"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.outer.subsumes(&tc.in); got != tc.wantResult {
				t.Errorf("subsumes = %t, want %t", got, tc.wantResult)
			}
		})
	}
}

func TestResourceConstraint(t *testing.T) {
	q1 := Resource{Collection: "reports", ID: "q1", Attributes: map[string]string{"quarter": "Q1"}}
	noAttr := Resource{Collection: "reports", ID: "x"}
	tests := []struct {
		name string
		gd   GrantDecision
		r    Resource
		want bool
	}{
		{"zero constraint", GrantDecision{}, q1, true},
		{"collection", GrantDecision{Resource: ResourceConstraint{Collection: "reports"}}, q1, true},
		{"other collection", GrantDecision{Resource: ResourceConstraint{Collection: "hr"}}, q1, false},
		{"filter", GrantDecision{Resource: ResourceConstraint{Filter: map[string][]string{"quarter": {"Q1", "Q2"}}}}, q1, true},
		{"filter miss", GrantDecision{Resource: ResourceConstraint{Filter: map[string][]string{"quarter": {"Q2"}}}}, q1, false},
		{"absent attribute never widens", GrantDecision{Resource: ResourceConstraint{Filter: map[string][]string{"quarter": {"Q1"}}}}, noAttr, false},
		{"id filter", GrantDecision{Resource: ResourceConstraint{Filter: map[string][]string{"id": {"q1"}}}}, q1, true},
		{"excluded", GrantDecision{Excluded: []ResourceConstraint{{Collection: "reports", Filter: map[string][]string{"quarter": {"Q1"}}}}}, q1, false},
		{"exclusion elsewhere", GrantDecision{Excluded: []ResourceConstraint{{Collection: "hr"}}}, q1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.gd.Permits(tc.r); got != tc.want {
				t.Errorf("Permits = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestIntersectResource(t *testing.T) {
	rule := &ResourceConstraint{Collection: "reports", Filter: map[string][]string{"quarter": {"Q1", "Q2"}}}
	tests := []struct {
		name   string
		rule   *ResourceConstraint
		q      *ResourceQuery
		want   string
		wantOK bool
	}{
		{"no rule, no query", nil, nil, "any resource", true},
		{"no rule keeps query", nil, &ResourceQuery{Collection: "hr"}, "collection=hr", true},
		{"rule fills collection", rule, nil, "collection=reports quarter=[Q1,Q2]", true},
		{"query pins a value", rule, &ResourceQuery{Filter: map[string]string{"quarter": "Q2"}}, "collection=reports quarter=[Q2]", true},
		{"query adds a field", rule, &ResourceQuery{Filter: map[string]string{"region": "eu"}}, "collection=reports quarter=[Q1,Q2] region=[eu]", true},
		{"other collection", rule, &ResourceQuery{Collection: "hr"}, "", false},
		{"value outside rule", rule, &ResourceQuery{Filter: map[string]string{"quarter": "Q3"}}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _, ok := intersectResource(tc.rule, tc.q)
			if ok != tc.wantOK || (ok && got.String() != tc.want) {
				t.Errorf("intersect = %q, %t; want %q, %t", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestDenyScope(t *testing.T) {
	r := &rule{res: &ResourceConstraint{Collection: "hr", Filter: map[string][]string{"level": {"secret"}}}}
	tests := []struct {
		name string
		q    *ResourceQuery
		want denyScope
	}{
		{"no query excludes", nil, scopeExclude},
		{"other collection", &ResourceQuery{Collection: "reports"}, scopeNone},
		{"same collection, unpinned field", &ResourceQuery{Collection: "hr"}, scopeExclude},
		{"fully inside", &ResourceQuery{Collection: "hr", Filter: map[string]string{"level": "secret"}}, scopeWhole},
		{"disjoint value", &ResourceQuery{Collection: "hr", Filter: map[string]string{"level": "public"}}, scopeNone},
		{"field pinned, no collection", &ResourceQuery{Filter: map[string]string{"level": "secret"}}, scopeExclude},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.scope(tc.q); got != tc.want {
				t.Errorf("scope = %d, want %d", got, tc.want)
			}
		})
	}
}
