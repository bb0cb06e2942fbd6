package gateway_test

import (
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/revocation/redistest"
)

const alicePrincipal = "user:alice@example.com"

// wantFrozen fails unless r is the refusal of an issuance to or for what
// is frozen: -32047 grant_denied with data.detail "frozen".
func wantFrozen(t *testing.T, r rpcResponse) {
	t.Helper()
	wantCode(t, r, -32047, "grant_denied")
	if r.Error.Data["detail"] != "frozen" {
		t.Fatalf("data.detail = %v, want frozen (%s)", r.Error.Data["detail"], r.Error.Message)
	}
}

// aliceRequest asks for alice's Q1 capability and returns the answer.
func (h *harness) aliceRequest() rpcResponse {
	h.t.Helper()
	_, r := h.rpc("alice-dev-key", "a2a/capabilities/request", map[string]any{
		"grants": []string{"documents:read"}, "purpose": "Summarize quarterly reports",
		"resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "2025-Q1"}},
	})
	return r
}

// TestFreezePrincipal: freezing a principal revokes every capability it
// holds or that acts for it, descendants included, refuses new issuance
// with -32047 detail "frozen", is listed and audited with who and why;
// the agent sees none of the refused calls. Unfreezing lets issuance
// resume; what was revoked stays revoked.
func TestFreezePrincipal(t *testing.T) {
	var trail lockedBuffer
	clk := &clock{now: time.Now()}
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.AuditWriter, o.Now = &trail, clk.Now })
	adm := h.admin(t)
	c := h.aliceQ1()
	child, r := h.attenuate("alice-dev-key", map[string]any{"capabilityId": c.ID, "constraints": map[string]any{}})
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	for _, bad := range []string{`{"kind":"principal","name":"` + alicePrincipal + `"}`, `{"kind":"group","name":"x","reason":"y"}`, `nope`} {
		if code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key", bad); code != 400 {
			t.Fatalf("freeze %s: %d %v, want 400", bad, code, out)
		}
	}
	if code, _ := adminCall(t, adm, "POST", "/admin/freeze", "alice-dev-key", `{"kind":"principal","name":"x","reason":"y"}`); code != 403 {
		t.Fatalf("a non-admin froze: %d", code)
	}
	code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key",
		`{"kind":"principal","name":"`+alicePrincipal+`","reason":"laptop stolen"}`)
	if code != 200 || out["revoked"] != float64(2) {
		t.Fatalf("freeze: %d %v", code, out)
	}
	before := h.invokeCount()
	for _, c := range []issued{c, child} {
		r := h.invokeFirst("alice-dev-key", c)
		wantCode(t, r, -32043, "capability_revoked")
	}
	wantFrozen(t, h.aliceRequest())
	if h.invokeCount() != before {
		t.Fatal("a refused invocation reached the agent")
	}
	if code, out := adminCall(t, adm, "GET", "/admin/frozen", "admin-dev-key", ""); code != 200 ||
		!strings.Contains(mustJSON(out), `"by":"user:admin@example.com"`) || !strings.Contains(mustJSON(out), `"reason":"laptop stolen"`) {
		t.Fatalf("frozen list: %d %s", code, mustJSON(out))
	}
	if code, _ := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key",
		`{"kind":"principal","name":"`+alicePrincipal+`","reason":"found it"}`); code != 200 {
		t.Fatalf("unfreeze: %d", code)
	}
	if code, _ := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key",
		`{"kind":"principal","name":"`+alicePrincipal+`","reason":"again"}`); code != 404 {
		t.Fatalf("unfreeze of what is not frozen: %d, want 404", code)
	}
	wantCode(t, h.invokeFirst("alice-dev-key", c), -32043, "capability_revoked")
	clk.Advance(2 * time.Second) // tokens date issuance to the second: past the freeze's cutoff
	if r := h.invokeFirst("alice-dev-key", h.aliceQ1()); r.Error != nil {
		t.Fatalf("after the unfreeze: %+v", r.Error)
	}
	log := trail.String()
	for _, want := range []string{`"event":"admin.freeze"`, `"reason":"laptop stolen"`, `"decision":"frozen"`,
		`"event":"admin.unfreeze"`, `"reason":"found it"`, `"decision":"unfrozen"`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit trail lacks %s", want)
		}
	}
}

// TestFreezeAgentAcrossRestarts: an agent frozen on one replica is
// refused on the other as soon as the admin API answered; the freeze
// survives a Redis restart without data and a new replica started after
// it; an unfreeze on the new replica reaches the first.
func TestFreezeAgentAcrossRestarts(t *testing.T) {
	srv := redistest.Start(t)
	start := replicaStarter(t, srv, 300*time.Millisecond, replicaTimeout)
	a, b := start(), start()
	c := b.aliceQ1()
	if code, out := adminCall(t, a.admin(t), "POST", "/admin/freeze", "admin-dev-key",
		`{"kind":"agent","name":"documents","reason":"answers leak ids"}`); code != 200 {
		t.Fatalf("freeze on A: %d %v", code, out)
	}
	before := b.invokeCount()
	wantFrozen(t, b.aliceRequest())
	wantCode(t, b.invokeWithToken("alice-dev-key", c), -32043, "capability_revoked")
	if b.invokeCount() != before {
		t.Fatal("a refused invocation reached the agent")
	}

	srv.Restart() // no persistence: Redis comes back empty
	waitFor(t, func() bool {
		n, err := srv.Client.HLen(t.Context(), "capgate:frz").Result()
		return err == nil && n == 1
	})
	fresh := start()
	waitFor(t, func() bool {
		r := fresh.aliceRequest()
		return r.Error != nil && r.Error.Data["detail"] == "frozen"
	})
	if code, out := adminCall(t, fresh.admin(t), "POST", "/admin/unfreeze", "admin-dev-key",
		`{"kind":"agent","name":"documents","reason":"patched"}`); code != 200 {
		t.Fatalf("unfreeze on the new replica: %d %v", code, out)
	}
	waitFor(t, func() bool { return a.aliceRequest().Error == nil })
}
