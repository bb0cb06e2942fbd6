package gateway_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/capgate/capgate/revocation/redistest"
)

// carolWritesHR is the quickstart's request that needs approval: write
// together with read on collection hr.
var carolWritesHR = map[string]any{
	"grants": []string{"documents:read", "documents:write"}, "purpose": "Fix the leave policy",
	"resourceQuery": map[string]any{"collection": "hr"},
}

// pendingID asks as carol and returns the approval id of the pending
// answer.
func (h *harness) pendingID(params map[string]any) string {
	h.t.Helper()
	_, r := h.rpc("carol-dev-key", "a2a/capabilities/request", params)
	var p struct{ Status, ApprovalID string }
	if r.Error != nil || json.Unmarshal(r.Result, &p) != nil || p.Status != "pending" || p.ApprovalID == "" {
		h.t.Fatalf("want pending, got %s %+v", r.Result, r.Error)
	}
	return p.ApprovalID
}

// TestApprovalThroughTheGateway: carol's HR write waits; dave (security)
// approves it on the admin listener; carol receives read and write on
// Salaries 2025 (documents:write requires documents:read, satisfied within
// one decision), uses it once, and cannot redeem twice.
func TestApprovalThroughTheGateway(t *testing.T) {
	h := newHarness(t, nil, nil)
	adm := h.admin(t)
	id := h.pendingID(carolWritesHR)
	if n := h.docs.Recorder().CountRPC("a2a/resources/resolve"); n != 1 {
		t.Errorf("the query was resolved %d times for one request, want once", n)
	}
	if status, _ := adminCall(t, adm, http.MethodPost, "/admin/approvals/"+id+"/approve", "carol-dev-key", `{"reason":"mine"}`); status != http.StatusForbidden {
		t.Fatalf("carol approved her own request: %d", status)
	}
	if status, body := adminCall(t, adm, http.MethodPost, "/admin/approvals/"+id+"/approve", "dave-dev-key", `{"reason":"SEC-42"}`); status != http.StatusOK {
		t.Fatalf("dave's approval: %d %v", status, body)
	}
	_, r := h.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	var res struct{ Capabilities []issued }
	_ = json.Unmarshal(r.Result, &res)
	if len(res.Capabilities) != 2 || res.Capabilities[1].handle("Salaries 2025") == "" {
		t.Fatalf("want read and write on Salaries 2025, got %s %+v", r.Result, r.Error)
	}
	w := res.Capabilities[1]
	_, r = h.rpc("carol-dev-key", "a2a/skill/invoke", invokeParams("update_document", w.ID,
		map[string]any{"resourceHandle": w.handle("Salaries 2025"), "content": "new"}))
	if r.Error != nil {
		t.Fatalf("using the approved capability: %+v", r.Error)
	}
	_, r = h.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	wantCode(t, r, -32047, "grant_denied")
}

// TestApprovalDeniedThroughTheGateway: the approver's reason reaches the
// caller in the error's data.
func TestApprovalDeniedThroughTheGateway(t *testing.T) {
	h := newHarness(t, nil, nil)
	id := h.pendingID(carolWritesHR)
	if status, _ := adminCall(t, h.admin(t), http.MethodPost, "/admin/approvals/"+id+"/deny", "dave-dev-key", `{"reason":"no change ticket"}`); status != http.StatusOK {
		t.Fatalf("deny: %d", status)
	}
	_, r := h.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	wantCode(t, r, -32047, "grant_denied")
	if r.Error.Data["approverReason"] != "no change ticket" {
		t.Fatalf("data %v lacks the approver's reason", r.Error.Data)
	}
	if h.invokeCount() != 0 {
		t.Fatal("the agent saw an invocation")
	}
}

// TestApprovalAcrossReplicas: requested on one replica, approved on the
// other's admin listener, redeemed on the first, and the second cannot
// redeem it again.
func TestApprovalAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	a, b := replicas(t, srv, 0)
	id := a.pendingID(carolWritesHR)
	if status, body := adminCall(t, b.admin(t), http.MethodPost, "/admin/approvals/"+id+"/approve", "dave-dev-key", `{"reason":"ok"}`); status != http.StatusOK {
		t.Fatalf("approve on replica b: %d %v", status, body)
	}
	_, r := a.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	var res struct{ Capabilities []issued }
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res.Capabilities) != 2 {
		t.Fatalf("redeem on replica a: %s %+v", r.Result, r.Error)
	}
	_, r = b.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	wantCode(t, r, -32047, "grant_denied")
}
