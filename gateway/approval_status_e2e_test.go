package gateway_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// approvalStatus asks a2a/capabilities/approval/status for id as key.
func (h *harness) approvalStatus(key, id string) rpcResponse {
	h.t.Helper()
	_, r := h.rpc(key, "a2a/capabilities/approval/status", map[string]any{"approvalId": id})
	return r
}

func statusWord(t *testing.T, r rpcResponse) (status, reason string) {
	t.Helper()
	var s struct{ Status, ApprovalID, Reason, Expires string }
	if r.Error != nil || json.Unmarshal(r.Result, &s) != nil || s.ApprovalID == "" || s.Expires == "" {
		t.Fatalf("want a status, got %s %+v", r.Result, r.Error)
	}
	return s.Status, s.Reason
}

// TestApprovalStatusThroughTheGateway: carol follows her request from
// pending to approved to redeemed with the status method; alice, asking
// about carol's request, gets the unknown-id answer. The documents agent
// sees none of the status calls.
func TestApprovalStatusThroughTheGateway(t *testing.T) {
	h := newHarness(t, nil, nil)
	id := h.pendingID(carolWritesHR)
	before := h.docs.Recorder().Count()
	if s, _ := statusWord(t, h.approvalStatus("carol-dev-key", id)); s != "pending" {
		t.Fatalf("status %q, want pending", s)
	}
	unknown := h.approvalStatus("carol-dev-key", "apr_AAAAAAAAAAAAAAAAAAAAAA")
	wantCode(t, unknown, -32602, "invalid_params")
	if other := h.approvalStatus("alice-dev-key", id); !reflect.DeepEqual(other.Error, unknown.Error) || other.Result != nil {
		t.Fatalf("another principal got %s %+v, want the unknown-id answer %+v", other.Result, other.Error, unknown.Error)
	}
	if status, body := adminCall(t, h.admin(t), http.MethodPost, "/admin/approvals/"+id+"/approve", "dave-dev-key", `{"reason":"SEC-42"}`); status != http.StatusOK {
		t.Fatalf("dave's approval: %d %v", status, body)
	}
	if s, reason := statusWord(t, h.approvalStatus("carol-dev-key", id)); s != "approved" || reason != "SEC-42" {
		t.Fatalf("status %q %q, want approved with dave's reason", s, reason)
	}
	if n := h.docs.Recorder().Count() - before; n != 0 {
		t.Fatalf("the agent saw %d requests during the status calls", n)
	}
	if _, r := h.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id}); r.Error != nil {
		t.Fatalf("redeem: %+v", r.Error)
	}
	if s, _ := statusWord(t, h.approvalStatus("carol-dev-key", id)); s != "redeemed" {
		t.Fatalf("status %q, want redeemed", s)
	}
}
