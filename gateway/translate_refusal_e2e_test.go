package gateway_test

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
)

// TestUntranslatableDelegationMintsNothing: a v1.0 delegation to a
// v0.3-only agent that cannot be translated is refused before it is
// decided. The agent sees nothing, and no child is minted or audited as
// delegated for a call that never left.
func TestUntranslatableDelegationMintsNothing(t *testing.T) {
	up := &versioned{card: cardV03}
	audit := &lockedBuffer{}
	h := newHarnessWith(t, rawUpstream{up}, func(cfg *config.Config) { cfg.Agents[1].Principal = "agent:extra" },
		func(o *gateway.BuildOptions) { o.AuditWriter = audit })
	resolveCard(t, h.srv.URL+"/a2a/extra/.well-known/agent-card.json")
	parent := h.aliceQ1()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER",` +
		`"parts":[{"text":"# summarize","mediaType":"text/markdown"}],` +
		`"metadata":{"` + agentcard.ExtensionURI + `":{"capabilities":["` + parent.ID + `"]}}}}}`
	_, b := h.post("extra", "alice-dev-key", body, "A2A-Version", "1.0")
	wantCode(t, decodeRPC(t, b), -32602, "untranslatable_call")
	if got := up.calls(); len(got) != 0 {
		t.Fatalf("a refused call reached the upstream: %v", got)
	}
	if strings.Contains(audit.String(), "capability.delegate") {
		t.Errorf("a delegation was audited for a call that never left: %s", audit.String())
	}
}
