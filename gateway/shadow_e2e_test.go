package gateway_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
)

// TestShadowPolicy: a candidate policy that narrows finance-read-reports
// decides beside the enforced quickstart policy without enforcing: alice
// is still issued her capability, and the disagreement is one audit
// event naming both outcomes and a metric; a request both policies
// decide alike records nothing.
func TestShadowPolicy(t *testing.T) {
	var trail lockedBuffer
	shadow, err := filepath.Abs(filepath.Join("..", "policy", "replay", "testdata", "narrowed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, nil, func(c *config.Config) { c.Policy.ShadowFile = shadow },
		func(o *gateway.BuildOptions) { o.AuditWriter = &trail })
	c := h.aliceQ1() // fails the test unless issued: the shadow enforces nothing
	if r := h.invokeFirst("alice-dev-key", c); r.Error != nil {
		t.Fatalf("invoke under the enforced policy: %+v", r.Error)
	}
	log := trail.String()
	if n := strings.Count(log, `"event":"policy.shadow_disagreement"`); n != 1 {
		t.Fatalf("%d disagreements in the trail, want 1:\n%s", n, log)
	}
	for _, want := range []string{`"candidate":{"allow":false`, `"enforced":{"allow":true`, `"rules":["finance-read-reports"]`} {
		if !strings.Contains(log, want) {
			t.Errorf("the disagreement lacks %s:\n%s", want, log)
		}
	}
	if body := scrape(t, h.srv.URL+"/metrics"); !strings.Contains(body, "capgate_policy_shadow_disagreements_total 1") {
		t.Errorf("metric missing:\n%s", body)
	}
	_, r := h.rpc("bob-dev-key", "a2a/capabilities/request", map[string]any{"grants": []string{"documents:read"},
		"resourceQuery": map[string]any{"collection": "hr"}})
	_ = r // bob's outcome is the same under both: no second event
	if n := strings.Count(trail.String(), `"event":"policy.shadow_disagreement"`); n != 1 {
		t.Fatalf("%d disagreements after a request both decide alike", n)
	}
}
