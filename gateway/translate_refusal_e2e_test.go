package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
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

// TestUntranslatableAnswerTo03: the answer of a v1.0-only agent that v0.3
// cannot express (a text part in text/markdown) reaches the v0.3 caller
// as -32603 untranslatable_answer naming the member, never in part; the
// agent received the call translated to v1.0.
func TestUntranslatableAnswerTo03(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, cardV10)
			return
		}
		mu.Lock()
		seen = append(seen, r.Header.Get("A2A-Version"))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"r","role":"ROLE_AGENT",`+
			`"parts":[{"text":"# done","mediaType":"text/markdown"}]}}}`)
	})
	h := newHarness(t, rawUpstream{up}, nil)
	resolveCard(t, h.srv.URL+"/a2a/extra/.well-known/agent-card.json")
	_, b := h.post("extra", "alice-dev-key", sendBody)
	r := decodeRPC(t, b)
	wantCode(t, r, -32603, "untranslatable_answer")
	if r.Error.Data["member"] != "result.message.parts[0].mediaType" {
		t.Errorf("refusal names %v, want result.message.parts[0].mediaType", r.Error.Data["member"])
	}
	if strings.Contains(string(b), "# done") {
		t.Errorf("the untranslatable answer leaked: %s", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "1.0" {
		t.Errorf("the agent saw A2A-Version %v, want one call under 1.0", seen)
	}
}
