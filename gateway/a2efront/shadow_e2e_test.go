package a2efront_test

import (
	"sync/atomic"
	"testing"
)

// TestShadowHandshake: a candidate policy that takes memory from finance
// decides every handshake beside the enforced one without enforcing: alice
// still negotiates tools and memory, and the disagreement is one
// policy.shadow_disagreement event (kind a2e, both outcomes) and one
// count; a handshake both decide alike records nothing.
func TestShadowHandshake(t *testing.T) {
	var counted atomic.Int32
	cand := quickstartPolicyEdited(t, "hosts: [lab]\n    capabilities: [tools, memory]", "hosts: [lab]\n    capabilities: [tools]")
	w := newWorld(t, worldOptions{shadow: fixedPolicy{cand}, disagreed: func() { counted.Add(1) }})
	if resp, _ := handshake(t, w.open(t), aliceKey, "tools", "memory"); !resp.OK || len(resp.AcceptedCaps) != 2 {
		t.Fatalf("the shadow changed the enforced handshake: %+v", resp)
	}
	evs := w.audit.events("policy.shadow_disagreement")
	if len(evs) != 1 || counted.Load() != 1 {
		t.Fatalf("%d disagreements audited, %d counted; want 1 and 1", len(evs), counted.Load())
	}
	ev := evs[0]
	enforced, _ := ev["enforced"].(map[string]any)
	candidate, _ := ev["candidate"].(map[string]any)
	if ev["kind"] != "a2e" || ev["agent"] != "lab" || ev["principal"] != "user:alice@example.com" ||
		len(enforced["outcome"].([]any)) != 2 || len(candidate["outcome"].([]any)) != 1 {
		t.Fatalf("disagreement = %v", ev)
	}
	if resp, _ := handshake(t, w.open(t), aliceKey, "tools"); !resp.OK {
		t.Fatalf("handshake refused: %+v", resp)
	}
	if n := len(w.audit.events("policy.shadow_disagreement")); n != 1 {
		t.Fatalf("%d disagreements after a handshake both decide alike, want 1", n)
	}
}
