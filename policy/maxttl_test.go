package policy_test

import (
	"context"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// TestGatewayCeilingCapsExpiry: the gateway's own ceiling (Input.MaxTTL)
// is part of the decision, so the expiry a grant decision carries is
// already the one to mint, and the reason says which limit applied.
func TestGatewayCeilingCapsExpiry(t *testing.T) {
	p := loadQuickstart(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	alice := policytest.QuickstartPrincipals()["alice"]
	tests := []struct {
		name    string
		maxTTL  time.Duration
		expires time.Time
		want    time.Time
	}{
		{"no ceiling: the rule's max_ttl", 0, time.Time{}, now.Add(time.Hour)},
		{"ceiling above the rule's: the rule's", 24 * time.Hour, time.Time{}, now.Add(time.Hour)},
		{"ceiling below the rule's: the ceiling", 10 * time.Minute, time.Time{}, now.Add(10 * time.Minute)},
		{"requested beyond the ceiling: capped", 10 * time.Minute, now.Add(30 * time.Minute), now.Add(10 * time.Minute)},
		{"requested within the ceiling: as asked", 10 * time.Minute, now.Add(5 * time.Minute), now.Add(5 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(context.Background(), policy.Input{
				Principal: alice, Agent: "documents", Grants: []string{"documents:read"},
				Resource: &policy.ResourceQuery{Collection: "reports"}, Expires: tt.expires,
				MaxTTL: tt.maxTTL, Now: now,
			})
			if !d.Allow || len(d.Grants) != 1 {
				t.Fatalf("not allowed: %+v", d.Reasons)
			}
			if got := d.Grants[0].Expires; !got.Equal(tt.want) {
				t.Errorf("expires %s, want %s", got, tt.want)
			}
		})
	}
}

// TestResourceQueryMatches: the one definition of resource-query matching.
func TestResourceQueryMatches(t *testing.T) {
	r := policy.Resource{Collection: "reports", ID: "q1", Attributes: map[string]string{"quarter": "2025-Q1"}}
	tests := []struct {
		name string
		q    *policy.ResourceQuery
		want bool
	}{
		{"nil query", nil, true},
		{"empty query", &policy.ResourceQuery{}, true},
		{"collection", &policy.ResourceQuery{Collection: "reports"}, true},
		{"other collection", &policy.ResourceQuery{Collection: "hr"}, false},
		{"filter", &policy.ResourceQuery{Filter: map[string]string{"quarter": "2025-Q1"}}, true},
		{"filter mismatch", &policy.ResourceQuery{Filter: map[string]string{"quarter": "2025-Q2"}}, false},
		{"absent attribute never matches", &policy.ResourceQuery{Filter: map[string]string{"owner": ""}}, false},
	}
	for _, tt := range tests {
		if got := tt.q.Matches(r); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}
