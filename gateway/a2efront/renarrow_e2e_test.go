package a2efront_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// swappablePolicy is a PolicySource whose policy a test replaces, as a
// reload does.
type swappablePolicy struct{ p atomic.Pointer[policy.Policy] }

func (s *swappablePolicy) Current() *policy.Policy { return s.p.Load() }

// quickstartPolicyEdited loads the quickstart policy with old replaced by
// new.
func quickstartPolicyEdited(t testing.TB, old, new string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile("../../deploy/examples/quickstart/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), old, new, 1)
	if edited == string(data) {
		t.Fatalf("%q is not in the quickstart policy", old)
	}
	p, _, err := policy.Load(context.Background(), []byte(edited), "policy.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPolicyReloadRenarrowsLiveSessions: a policy that no longer allows
// tools to finance takes effect at the next message of a live session;
// memory, still allowed, keeps working; nothing refused reaches the host.
func TestPolicyReloadRenarrowsLiveSessions(t *testing.T) {
	src := &swappablePolicy{}
	src.p.Store(quickstartPolicy(t))
	w := newWorld(t, worldOptions{policy: src})
	c := w.open(t)
	if resp, m := handshake(t, c, aliceKey, "tools", "memory"); !resp.OK || !capsByName(resp)["tools"].Enabled {
		t.Fatalf("handshake/resp = %s", m.Raw)
	}
	id := send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "before"}}, http.StatusAccepted)
	if r, ok := next(t, c).Body.(*a2e.ToolCallResp); !ok || r.ReqID != id {
		t.Fatalf("echo before the reload = %+v", r)
	}

	src.p.Store(quickstartPolicyEdited(t, "capabilities: [tools, memory]", "capabilities: [memory]"))
	for range 2 { // decided once, then from the cache
		id = send(t, c, &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "after"}}, http.StatusAccepted)
		if e := expectError(t, c, id, a2e.CodeCapabilityMissing); e.CapabilityName != "tools" || !strings.Contains(e.Message, "no longer allowed") {
			t.Errorf("refusal = %+v", e)
		}
	}
	if n := w.lab.Recorder().CountType(a2e.TypeToolCallReq); n != 1 {
		t.Errorf("host saw %d tool calls, want only the one before the reload", n)
	}
	send(t, c, &a2e.MemoryRetrieveReq{MemoryID: "m"}, http.StatusAccepted)
	if m := next(t, c); m.Type == a2e.TypeError {
		t.Errorf("memory after the reload: %s", m.Raw)
	}

	src.p.Store(nil) // no policy at all: fail closed
	send(t, c, &a2e.MemoryRetrieveReq{MemoryID: "m"}, http.StatusServiceUnavailable)
	if n := w.lab.Recorder().CountType(a2e.TypeMemoryRetrieveReq); n != 1 {
		t.Errorf("host saw %d memory queries, want 1", n)
	}
}
