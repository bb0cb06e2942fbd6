package mcpfront_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
	"github.com/capgate/capgate/policy"
)

// TestShadowPolicyAtTheServer: a candidate policy without the rule that
// lets finance read the reports decides each capability request at the
// MCP front beside the enforced one, enforcing nothing: alice is still
// issued her capability, and the disagreement is one audit event naming
// the server and both outcomes; a request both policies refuse records
// nothing.
func TestShadowPolicyAtTheServer(t *testing.T) {
	w := newWorldWith(t, "", func(s *config.MCPServer, d *mcpfront.Deps) {
		d.Shadow = candidatePolicy(t, *s, "finance-read-reports")
	})
	caps := issued(t, w.rpc(t, aliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"files:read"}, "resourceQuery": map[string]any{"collection": "reports"},
	}))
	if len(caps) != 1 {
		t.Fatalf("issued %d capabilities under the enforced policy, want 1", len(caps))
	}
	trail := w.audit.String()
	if n := strings.Count(trail, `"msg":"policy.shadow_disagreement"`); n != 1 {
		t.Fatalf("%d disagreements in the trail, want 1:\n%s", n, trail)
	}
	for _, want := range []string{`"candidate":{"allow":false`, `"enforced":{"allow":true`, `"rules":["finance-read-reports"]`, `"files"`} {
		if !strings.Contains(trail, want) {
			t.Errorf("the disagreement lacks %s:\n%s", want, trail)
		}
	}
	w.rpc(t, bobKey, "a2a/capabilities/request", map[string]any{"grants": []string{"files:read"}})
	if n := strings.Count(w.audit.String(), `"msg":"policy.shadow_disagreement"`); n != 1 {
		t.Fatalf("%d disagreements after a request both policies refuse", n)
	}
}

// candidatePolicy is the tests' policy without the rule named drop.
func candidatePolicy(t *testing.T, s config.MCPServer, drop string) fixedPolicy {
	t.Helper()
	data, err := os.ReadFile("testdata/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "  - id: "+drop)
	end := strings.Index(text[start+1:], "  - id: ")
	if start < 0 || end < 0 {
		t.Fatalf("no rule %s before another in the policy", drop)
	}
	text = text[:start] + text[start+1+end:]
	cfg := &config.Config{MCPServers: []config.MCPServer{s}}
	pol, problems, err := policy.Load(context.Background(), []byte(text), "candidate.yaml", cfg.Catalog())
	if err != nil {
		t.Fatal(err, problems)
	}
	return fixedPolicy{pol}
}
