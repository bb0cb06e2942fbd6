package enforce_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/policy"
)

// labPolicy allows finance the given capabilities on the A2E host lab.
func labPolicy(t *testing.T, caps string) *policy.Policy {
	t.Helper()
	src := "version: 1\nrules: []\na2e:\n  - id: finance-lab\n    principals: {groups: [finance]}\n    hosts: [lab]\n    capabilities: [" + caps + "]\n"
	cat := policy.Catalog{A2EHosts: map[string]policy.A2EHostCatalog{"lab": {Capabilities: []string{"tools", "memory", "env"}}}}
	p, problems, err := policy.Load(context.Background(), []byte(src), "policy.yaml", cat)
	if err != nil || len(problems) > 0 {
		t.Fatalf("policy: %v %v", err, problems)
	}
	return p
}

func TestSessionsCheck(t *testing.T) {
	ctx := context.Background()
	both, toolsOnly := labPolicy(t, "tools, memory"), labPolicy(t, "tools")
	var current *policy.Policy
	s := enforce.NewSessions(func() *policy.Policy { return current }, 10)
	asked := 0
	redecide := func(ctx context.Context, pol *policy.Policy) []string {
		asked++
		return pol.DecideA2E(ctx, policy.A2EInput{
			Principal: policy.Principal{ID: alice, Groups: []string{"finance"}}, Host: "lab",
			Capabilities: []string{"tools", "memory"}, Now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		}).Allowed
	}
	n := enforce.Negotiated{Session: "s1", Operations: []string{"tools", "memory"}, Revision: both.Revision()}
	tests := []struct {
		name      string
		pol       *policy.Policy
		op        string
		wantErr   error
		wantAsked int
	}{
		{name: "no policy fails closed", op: "tools", wantErr: enforce.ErrNoPolicy},
		{name: "not negotiated, whatever the policy", op: "env", wantErr: refused(enforce.OperationNotPermitted)},
		{name: "the deciding policy: nothing re-decided", pol: both, op: "memory"},
		{name: "a reload narrows", pol: toolsOnly, op: "memory", wantErr: refused(enforce.OperationNotPermitted), wantAsked: 1},
		{name: "decided once per revision", pol: toolsOnly, op: "tools", wantAsked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			current = tt.pol
			r, err := s.Check(ctx, n, tt.op, redecide)
			if err == nil {
				err = asErr(r)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Check(%s) = %v, want %v", tt.op, err, tt.wantErr)
			}
			if asked != tt.wantAsked {
				t.Errorf("the policy was asked %d times, want %d", asked, tt.wantAsked)
			}
		})
	}
}
