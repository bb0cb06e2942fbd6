package gateway_test

import (
	"testing"
	"time"
)

// TestAttenuateAndRevokeCascade walks the SEP's delegation chain: a child
// narrowed to one handle and retrieve only works within its bounds, and
// dies with its parent.
func TestAttenuateAndRevokeCascade(t *testing.T) {
	h := newHarness(t, nil, nil)
	parent := h.aliceQ1()
	fin, sales := parent.handle("Q1 Financial Summary"), parent.handle("Q1 Sales Report")
	child, r := h.attenuate("alice-dev-key", map[string]any{"capabilityId": parent.ID,
		"constraints": map[string]any{"resourceHandles": []string{fin}, "operations": []string{"retrieve"}}})
	if r.Error != nil {
		t.Fatalf("attenuate: %+v", r.Error)
	}
	if child.Depth != 1 || len(child.ResourceHandles) != 1 || child.ResourceHandles[0].DisplayName != "Q1 Financial Summary" {
		t.Fatalf("child = %+v", child)
	}
	invoke := func(capID, skill, handle string) rpcResponse {
		_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams(skill, capID, map[string]any{"resourceHandle": handle}))
		return r
	}
	if r := invoke(child.ID, "retrieve_document", fin); r.Error != nil {
		t.Fatalf("child retrieve: %+v", r.Error)
	}
	h.docs.Recorder().Reset()
	wantCode(t, invoke(child.ID, "retrieve_document", sales), -32045, "resource_not_permitted")
	wantCode(t, invoke(child.ID, "search_documents", fin), -32044, "operation_not_permitted")
	if _, r := h.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": parent.ID}); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	wantCode(t, invoke(child.ID, "retrieve_document", fin), -32043, "capability_revoked")
	wantCode(t, invoke(parent.ID, "retrieve_document", fin), -32043, "capability_revoked")
	if h.invokeCount() != 0 {
		t.Fatal("the agent saw a refused invocation")
	}
}

// TestRevokeMiddleLink revokes a child: only its subtree dies.
func TestRevokeMiddleLink(t *testing.T) {
	h := newHarness(t, nil, nil)
	root := h.aliceQ1()
	mid, _ := h.attenuate("alice-dev-key", map[string]any{"capabilityId": root.ID, "constraints": map[string]any{"operations": []string{"retrieve", "list"}}})
	leaf, _ := h.attenuate("alice-dev-key", map[string]any{"capabilityId": mid.ID, "constraints": map[string]any{"operations": []string{"retrieve"}}})
	if _, r := h.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": mid.ID}); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	for _, tc := range []struct {
		id   string
		want bool
	}{{root.ID, true}, {mid.ID, false}, {leaf.ID, false}} {
		_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("retrieve_document", tc.id,
			map[string]any{"resourceHandle": root.ResourceHandles[0].Handle}))
		if (r.Error == nil) != tc.want {
			t.Errorf("%s: alive = %v, want %v (%+v)", tc.id, r.Error == nil, tc.want, r.Error)
		}
	}
}

// TestAttenuationNeverWidens refuses every widening attempt and the depth
// beyond the policy's cap (2 for finance).
func TestAttenuationNeverWidens(t *testing.T) {
	h := newHarness(t, nil, nil)
	root := h.aliceQ1()
	later := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name string
		cons map[string]any
	}{
		{"extra operation", map[string]any{"operations": []string{"retrieve", "update"}}},
		{"foreign handle", map[string]any{"resourceHandles": []string{"rh_someoneelse"}}},
		{"later expiry", map[string]any{"expires": later}},
		{"expiry in the past", map[string]any{"expires": "2001-01-01T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := h.attenuate("alice-dev-key", map[string]any{"capabilityId": root.ID, "constraints": tt.cons})
			wantCode(t, r, -32048, "attenuation_not_permitted")
		})
	}
	t.Run("depth cap", func(t *testing.T) {
		id := root.ID
		for depth := 1; depth <= 2; depth++ {
			c, r := h.attenuate("alice-dev-key", map[string]any{"capabilityId": id, "constraints": map[string]any{}})
			if r.Error != nil {
				t.Fatalf("depth %d: %+v", depth, r.Error)
			}
			id = c.ID
		}
		_, r := h.attenuate("alice-dev-key", map[string]any{"capabilityId": id, "constraints": map[string]any{}})
		wantCode(t, r, -32048, "attenuation_not_permitted")
	})
	t.Run("bob cannot attenuate alice's capability", func(t *testing.T) {
		_, r := h.attenuate("bob-dev-key", map[string]any{"capabilityId": root.ID, "constraints": map[string]any{}})
		wantCode(t, r, -32046, "holder_mismatch")
	})
	t.Run("bob cannot revoke alice's capability", func(t *testing.T) {
		_, r := h.rpc("bob-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": root.ID})
		wantCode(t, r, -32046, "holder_mismatch")
	})
}
