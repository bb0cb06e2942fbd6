package mcpfront_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// TestApprovalAtTheServer: a request the policy grants only with a
// human's approval is held at /mcp/files (nothing issued, the server
// sees nothing); its status is the caller's to read; once approved,
// asking again with its approvalId issues the capability, which calls
// the tool.
func TestApprovalAtTheServer(t *testing.T) {
	desk := approval.NewDesk(approval.NewMemory(time.Now), approval.Options{Now: time.Now})
	w := newWorldWith(t, "", func(_ *config.MCPServer, d *mcpfront.Deps) { d.Approvals = desk })
	before := len(w.upstream.seen())
	ask := map[string]any{"grants": []string{"files:write"}, "resourceQuery": map[string]any{"collection": "reports"}}
	a := w.rpc(t, aliceKey, "a2a/capabilities/request", ask)
	var held sep.PendingResult
	if a.Error != nil || json.Unmarshal(a.Result, &held) != nil || held.Status != sep.StatusPending || held.ApprovalID == "" {
		t.Fatalf("request: %s %+v, want it held for approval", a.Result, a.Error)
	}
	if a := w.rpc(t, bobKey, "a2a/capabilities/approval/status", map[string]any{"approvalId": held.ApprovalID}); a.Error == nil {
		t.Errorf("bob read alice's approval: %s", a.Result)
	}
	var status sep.ApprovalStatusResult
	a = w.rpc(t, aliceKey, "a2a/capabilities/approval/status", map[string]any{"approvalId": held.ApprovalID})
	if a.Error != nil || json.Unmarshal(a.Result, &status) != nil || status.Status != "pending" {
		t.Fatalf("status: %s %+v", a.Result, a.Error)
	}
	dave := policy.Principal{ID: "user:dave@example.com", Groups: []string{"security"}}
	if _, err := desk.Approve(context.Background(), held.ApprovalID, dave, "quarter close"); err != nil {
		t.Fatal(err)
	}
	write := issued(t, w.rpc(t, aliceKey, "a2a/capabilities/request", map[string]any{"approvalId": held.ApprovalID}))[0]
	if write.Grant != "files:write" || len(write.ResourceHandles) != 2 {
		t.Fatalf("issued %+v, want files:write over the reports", write)
	}
	if got := len(w.upstream.seen()); got != before {
		t.Errorf("the server saw %d requests of the approval flow", got-before)
	}
	cs := w.connect(t, aliceKey, "")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "write_file",
		Arguments: map[string]any{"path": write.ResourceHandles[0].Handle, "content": "x"}, Meta: withCapability(write.ID)})
	if err != nil || res.IsError {
		t.Fatalf("write_file under the approved capability: %v %+v", err, res)
	}
}
