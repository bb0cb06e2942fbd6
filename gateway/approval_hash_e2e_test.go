package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/audit"
)

// TestApprovalActionHashThroughTheGateway: the admin API lists a waiting
// request with the hash of exactly what it issues; every approval event
// of the audit trail names that hash, and the chain still verifies.
func TestApprovalActionHashThroughTheGateway(t *testing.T) {
	var buf lockedBuffer
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.AuditWriter = &buf })
	adm := h.admin(t)
	id := h.pendingID(carolWritesHR)
	status, body := adminCall(t, adm, http.MethodGet, "/admin/approvals?status=pending", "dave-dev-key", "")
	list, _ := body["approvals"].([]any)
	if status != http.StatusOK || len(list) != 1 {
		t.Fatalf("listing: %d %v", status, body)
	}
	hash, _ := list[0].(map[string]any)["actionHash"].(string)
	if !strings.HasPrefix(hash, "sha256:") || len(hash) != len("sha256:")+64 {
		t.Fatalf("listed without its action hash: %v", list[0])
	}
	if status, body := adminCall(t, adm, http.MethodPost, "/admin/approvals/"+id+"/approve", "dave-dev-key", `{"reason":"SEC-42"}`); status != http.StatusOK {
		t.Fatalf("approve: %d %v", status, body)
	}
	_, r := h.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"approvalId": id})
	var res struct{ Capabilities []json.RawMessage }
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Capabilities) != 2 {
		t.Fatalf("redeem: %s %+v", r.Result, r.Error)
	}
	log := buf.String()
	for _, ev := range []string{"approval.requested", "approval.approved", "approval.redeemed"} {
		if !strings.Contains(log, `"event":"`+ev+`"`) {
			t.Errorf("audit trail lacks %s", ev)
		}
	}
	if n := strings.Count(log, `"action_hash":"`+hash+`"`); n != 3 {
		t.Errorf("%d audit events name %s, want 3:\n%s", n, hash, log)
	}
	if rep, err := audit.Verify(strings.NewReader(log)); err != nil || rep.Events < 4 {
		t.Fatalf("verify: %v (%d events)", err, rep.Events)
	}
}
