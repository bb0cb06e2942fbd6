package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
)

// legacyAgent is an upstream whose card does not declare the capability
// extension; it counts the calls that reach it.
type legacyAgent struct{ calls atomic.Int32 }

func (l *legacyAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, `{"name":"legacy","url":"http://legacy.test/","version":"1","min_protocol_version":"0.1","max_protocol_version":"1.0","capabilities":{"streaming":false}}`)
		return
	}
	l.calls.Add(1)
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"kind":"message","role":"agent","parts":[{"kind":"text","text":"ok"}]}}`)
}

// TestDelegationToLegacyAgent: an agent that does not understand
// capabilities gets a delegated send only where the policy explicitly
// allows ambient authority for it.
func TestDelegationToLegacyAgent(t *testing.T) {
	base, err := os.ReadFile("../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	allow := strings.Replace(string(base), "ambient: []", `ambient:
  - id: finance-legacy-bot
    principals: {groups: [finance]}
    agents: [extra]
    methods: [SendMessage]`, 1)
	for _, tc := range []struct {
		name   string
		policy string
		want   int
	}{{"without allowance", string(base), -32004}, {"with allowance", allow, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			pol := filepath.Join(t.TempDir(), "policy.yaml")
			if err := os.WriteFile(pol, []byte(tc.policy), 0o600); err != nil {
				t.Fatal(err)
			}
			up := &legacyAgent{}
			h := newHarness(t, rawUpstream{up}, func(c *config.Config) {
				c.Policy.File = pol
				c.Agents[1].Legacy, c.Agents[1].Principal = true, "agent:legacy-bot"
			})
			c := h.aliceQ1()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]},"capabilities":[%q]}}`, c.ID)
			_, b := h.post("extra", "alice-dev-key", body)
			r := decodeRPC(t, b)
			switch {
			case tc.want == 0 && r.Error != nil:
				t.Fatalf("refused: %+v", r.Error)
			case tc.want != 0 && (r.Error == nil || r.Error.Code != tc.want):
				t.Fatalf("want %d, got %s", tc.want, b)
			case tc.want != 0 && up.calls.Load() != 0:
				t.Fatal("the refused delegation reached the legacy agent")
			}
		})
	}
}

// TestAmbientInvocation is the SEP's migration path: an invocation without
// a capability reaches a legacy agent only where an ambient rule allows
// that principal that skill; everything else is capability_required.
func TestAmbientInvocation(t *testing.T) {
	up := &legacyAgent{}
	h := ambientLegacyHarness(t, up, "lookup", "wipe")
	call := func(key, skill string) rpcResponse {
		_, b := h.post("extra", key, `{"jsonrpc":"2.0","id":7,"method":"a2a/skill/invoke","params":{"skill":"`+skill+`","arguments":{}}}`)
		return decodeRPC(t, b)
	}
	if r := call("alice-dev-key", "lookup"); r.Error != nil {
		t.Fatalf("allowed ambient call refused: %+v", r.Error)
	}
	if up.calls.Load() != 1 {
		t.Fatalf("the legacy agent saw %d calls, want 1", up.calls.Load())
	}
	wantCode(t, call("alice-dev-key", "wipe"), -32040, "capability_required")
	wantCode(t, call("bob-dev-key", "lookup"), -32040, "capability_required")
	if up.calls.Load() != 1 {
		t.Fatal("a refused ambient call reached the legacy agent")
	}
}

// cardlessAgent answers every card fetch with an error and counts the
// calls that reach it.
type cardlessAgent struct{ calls atomic.Int32 }

func (c *cardlessAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		http.Error(w, "no card", http.StatusInternalServerError)
		return
	}
	c.calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
}

// TestHopRefusedWithoutCard: a hop whose receiving agent's card cannot be
// fetched is refused, and the agent sees nothing: the gateway never
// forwards a hop it could not validate.
func TestHopRefusedWithoutCard(t *testing.T) {
	up := &cardlessAgent{}
	// The calls name no task: task ownership is not what is tested here.
	h := newHarness(t, rawUpstream{up}, func(c *config.Config) { c.Agents[1].TaskOwnership = config.TaskOwnershipOff })
	for _, method := range []string{"message/send", "message/stream", "tasks/pushNotificationConfig/set"} {
		_, b := h.post("extra", "alice-dev-key", strings.Replace(sendBody, "message/send", method, 1))
		r := decodeRPC(t, oneEvent(b))
		if r.Error == nil || r.Error.Data["reason"] != "card_unavailable" {
			t.Fatalf("%s: want card_unavailable, got %s", method, b)
		}
	}
	if up.calls.Load() != 0 {
		t.Fatalf("the agent saw %d calls after its card failed", up.calls.Load())
	}
	_, b := h.post("extra", "alice-dev-key", strings.Replace(sendBody, "message/send", "tasks/get", 1))
	if r := decodeRPC(t, b); r.Error != nil || up.calls.Load() != 1 {
		t.Fatalf("tasks/get needs no card and should pass: %s", b)
	}
}

// ambientLegacyHarness runs the extra agent as the legacy upstream up,
// with skills, under the quickstart policy plus an ambient rule that
// lets the finance group invoke lookup on it without a capability.
func ambientLegacyHarness(t *testing.T, up http.Handler, skills ...string) *harness {
	t.Helper()
	base, err := os.ReadFile("../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	allow := strings.Replace(string(base), "ambient: []", `ambient:
  - id: finance-legacy-lookup
    principals: {groups: [finance]}
    agents: [extra]
    skills: [lookup]`, 1)
	if err := os.WriteFile(pol, []byte(allow), 0o600); err != nil {
		t.Fatal(err)
	}
	return newHarness(t, rawUpstream{up}, func(c *config.Config) {
		c.Policy.File = pol
		c.Agents[1].Legacy, c.Agents[1].Principal = true, "agent:legacy-bot"
		c.Agents[1].Grants = []policy.Grant{{ID: "legacy:all", Operations: skills}}
		c.Agents[1].Skills = map[string]string{}
		for _, s := range skills {
			c.Agents[1].Skills[s] = s
		}
	})
}
