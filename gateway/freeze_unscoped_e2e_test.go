package gateway_test

import (
	"strings"
	"testing"
)

// TestFreezeStopsUnscopedCalls: a freeze stops the calls that name no
// capability too. Once an operator freezes a legacy agent, or the
// principal calling it, neither an ambient invocation the policy allows,
// nor a plain send, nor a task read reaches the agent; each is refused
// capability_revoked with data.detail "frozen".
func TestFreezeStopsUnscopedCalls(t *testing.T) {
	up := &legacyAgent{}
	h := ambientLegacyHarness(t, up, "lookup")
	adm := h.admin(t)
	calls := []string{
		`{"jsonrpc":"2.0","id":7,"method":"a2a/skill/invoke","params":{"skill":"lookup","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t-1"}}`,
	}
	for _, b := range calls[:2] {
		if _, out := h.post("extra", "alice-dev-key", b); decodeRPC(t, out).Error != nil {
			t.Fatalf("before the freeze: %s", out)
		}
	}
	for _, freeze := range []string{`{"kind":"agent","name":"extra","reason":"compromised"}`,
		`{"kind":"principal","name":"` + alicePrincipal + `","reason":"laptop stolen"}`} {
		if code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key", freeze); code != 200 {
			t.Fatalf("freeze %s: %d %v", freeze, code, out)
		}
		before := up.calls.Load()
		for _, b := range calls {
			_, out := h.post("extra", "alice-dev-key", b)
			r := decodeRPC(t, out)
			wantCode(t, r, -32043, "capability_revoked")
			if r.Error.Data["detail"] != "frozen" {
				t.Fatalf("%s under %s: %s, want detail frozen", b, freeze, out)
			}
		}
		if up.calls.Load() != before {
			t.Fatalf("under %s a refused call reached the frozen agent", freeze)
		}
		if code, out := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key",
			strings.Replace(freeze, `"reason":"`, `"reason":"lifted `, 1)); code != 200 {
			t.Fatalf("unfreeze: %d %v", code, out)
		}
	}
}

// TestFreezeNamesAConfiguredAgent: an agent freeze must name an agent, MCP
// server or A2E host the gateway fronts; a misspelt name, which would
// freeze nothing while the operator believes it holds, is refused 400.
func TestFreezeNamesAConfiguredAgent(t *testing.T) {
	h := newHarness(t, nil, nil)
	adm := h.admin(t)
	for _, tc := range []struct {
		name string
		want int
	}{{"Documents", 400}, {"documents ", 400}, {"nowhere", 400}, {"documents", 200}, {"files", 200}, {"lab", 200}} {
		code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key",
			`{"kind":"agent","name":"`+tc.name+`","reason":"incident"}`)
		if code != tc.want {
			t.Errorf("freeze of agent %q: %d %v, want %d", tc.name, code, out, tc.want)
		}
	}
}
