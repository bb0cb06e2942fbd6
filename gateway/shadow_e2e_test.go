package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
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

// TestShadowAmbient: a candidate policy without the ambient rule decides
// beside the enforced one that has it: alice's ambient call to the
// legacy agent still goes through, and the disagreement is one audit
// event of kind ambient naming the skill and both outcomes.
func TestShadowAmbient(t *testing.T) {
	var trail lockedBuffer
	base, err := os.ReadFile("../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	enforced, shadow := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "shadow.yaml")
	allow := strings.Replace(string(base), "ambient: []", `ambient:
  - id: finance-legacy-lookup
    principals: {groups: [finance]}
    agents: [extra]
    skills: [lookup]`, 1)
	if err := os.WriteFile(enforced, []byte(allow), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shadow, base, 0o600); err != nil {
		t.Fatal(err)
	}
	up := &legacyAgent{}
	h := newHarnessWith(t, rawUpstream{up}, func(c *config.Config) {
		c.Policy.File, c.Policy.ShadowFile = enforced, shadow
		c.Agents[1].Legacy, c.Agents[1].Principal = true, "agent:legacy-bot"
		c.Agents[1].Grants = []policy.Grant{{ID: "legacy:all", Operations: []string{"lookup"}}}
		c.Agents[1].Skills = map[string]string{"lookup": "lookup"}
	}, func(o *gateway.BuildOptions) { o.AuditWriter = &trail })
	_, b := h.post("extra", "alice-dev-key", `{"jsonrpc":"2.0","id":7,"method":"a2a/skill/invoke","params":{"skill":"lookup","arguments":{}}}`)
	if r := decodeRPC(t, b); r.Error != nil || up.calls.Load() != 1 {
		t.Fatalf("the shadow changed the enforced ambient call: %+v, %d calls", r.Error, up.calls.Load())
	}
	log := trail.String()
	if n := strings.Count(log, `"event":"policy.shadow_disagreement"`); n != 1 {
		t.Fatalf("%d disagreements in the trail, want 1:\n%s", n, log)
	}
	for _, want := range []string{`"kind":"ambient"`, `"grants":["lookup"]`, `"candidate":{"allow":false`, `"enforced":{"allow":true`, `"rules":["finance-legacy-lookup"]`} {
		if !strings.Contains(log, want) {
			t.Errorf("the disagreement lacks %s:\n%s", want, log)
		}
	}
}
