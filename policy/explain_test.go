package policy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// TestExplainGolden renders Explain for quickstart requests and compares
// the text with testdata/explain/<case>.golden.
func TestExplainGolden(t *testing.T) {
	p := loadQuickstart(t)
	who := policytest.QuickstartPrincipals()
	ctx := context.Background()
	tests := []struct {
		name string
		text string
		must []string
	}{
		{"bob_hr", p.Explain(ctx, policy.Input{Principal: who["bob"], Agent: "documents", Grants: []string{"documents:read"},
			Resource: &policy.ResourceQuery{Collection: "hr"}, Now: noon}), []string{`MATCH: denies the grant`, `contractors-never-hr`, "decision: DENY"}},
		{"alice_read_write", p.Explain(ctx, policy.Input{Principal: who["alice"], Agent: "documents", Grants: []string{"documents:read", "documents:write"},
			Resource: &policy.ResourceQuery{Collection: "reports"}, Purpose: "Summarize", Now: noon}), []string{"ISSUED", "(default deny)", "decision: ALLOW"}},
		{"carol_write_only", p.Explain(ctx, policy.Input{Principal: who["carol"], Agent: "documents", Grants: []string{"documents:write"},
			Resource: &policy.ResourceQuery{Collection: "hr"}, Now: noon}), []string{"requires"}},
		{"carol_write_needs_approval", p.Explain(ctx, policy.Input{Principal: who["carol"], Agent: "documents", Grants: []string{"documents:read", "documents:write"},
			Resource: &policy.ResourceQuery{Collection: "hr"}, Purpose: "Fix the leave policy", Now: noon}),
			[]string{`would need approval by group security (rule "hr-editors-write-needs-approval", waits at most 1h0m0s)`, "decision: ALLOW", "would need approval by group security before anything is issued"}},
		{"summarizer_unknown_agent", p.Explain(ctx, policy.Input{Principal: who["summarizer"], Agent: "payroll", Grants: []string{"payroll:read"}, Now: noon}),
			[]string{`unknown agent "payroll"`}},
		{"bob_a2e", p.ExplainA2E(ctx, policy.A2EInput{Principal: who["bob"], Host: "lab", Capabilities: []string{"tools", "memory"}, Now: noon}),
			[]string{"=> ALLOWED", "=> DENIED"}},
		{"ambient_documents", p.ExplainAmbient(ctx, policy.AmbientInput{Principal: who["alice"], Agent: "documents", Skill: "retrieve_document", Method: "message/send", Now: noon}),
			[]string{"understands capabilities"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, "testdata/explain/"+tc.name+".golden", []byte(tc.text))
			for _, m := range tc.must {
				if !strings.Contains(tc.text, m) {
					t.Errorf("explanation lacks %q", m)
				}
			}
		})
	}
}

// TestExplainAgreesWithDecide checks that Explain decides exactly as Decide.
func TestExplainAgreesWithDecide(t *testing.T) {
	p := mustLoad(t, "testdata/decide/policy.yaml")
	for _, in := range []policy.Input{
		{Principal: intern, Agent: "documents", Grants: []string{"documents:read"}, Purpose: "Quarterly summary", Now: noon},
		{Principal: staff, Agent: "documents", Grants: []string{"documents:write"}, Now: night},
	} {
		d := p.Decide(context.Background(), in)
		text := p.Explain(context.Background(), in)
		if d.Allow != strings.Contains(text, "decision: ALLOW") {
			t.Errorf("Explain disagrees with Decide (allow %t):\n%s", d.Allow, text)
		}
		for _, r := range d.Reasons {
			if !strings.Contains(text, r.Text) {
				t.Errorf("Explain lacks reason %q", r.Text)
			}
		}
	}
}
