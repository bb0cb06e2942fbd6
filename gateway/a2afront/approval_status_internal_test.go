package a2afront

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// status asks a2a/capabilities/approval/status with params as key, at
// agent, and checks that the front answered itself: nothing to forward.
func (fx *approvalFixture) status(t *testing.T, key, agent, params string) *jsonrpc.Response {
	t.Helper()
	out := fx.front.decide(context.Background(), fx.call(t, key, agent,
		`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/approval/status","params":`+params+`}`))
	if out.resp == nil || out.forward != nil {
		t.Fatalf("the status call was not answered by the front: %+v", out)
	}
	return out.resp
}

func statusResult(t *testing.T, resp *jsonrpc.Response) sep.ApprovalStatusResult {
	t.Helper()
	var res sep.ApprovalStatusResult
	raw, _ := json.Marshal(resp.Result)
	if resp.Error != nil || json.Unmarshal(raw, &res) != nil {
		t.Fatalf("want a status, got %s %+v", raw, resp.Error)
	}
	return res
}

// TestApprovalStatusFollowsTheRequest reads the status of alice's requests
// through every state: pending, approved (with the approver's reason),
// redeemed, denied, expired. Reading never mints, redeems or reaches the
// agent.
func TestApprovalStatusFollowsTheRequest(t *testing.T) {
	fx := newApprovalFixture(t)
	params := func(purpose string) string {
		return `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"},"purpose":"` + purpose + `"}`
	}
	dave := policy.Principal{ID: "user:dave@example.com", Groups: []string{"security"}}
	redeemed, denied, expired := fx.pending(t, params("a")), fx.pending(t, params("b")), fx.pending(t, params("c"))
	calls := len(fx.upstream.calls(""))
	ask := func(id string) sep.ApprovalStatusResult {
		return statusResult(t, fx.status(t, aliceKey, "documents", `{"approvalId":"`+id+`"}`))
	}
	if got := ask(redeemed.ApprovalID); got != (sep.ApprovalStatusResult{Status: sep.ApprovalPending, ApprovalID: redeemed.ApprovalID, Expires: redeemed.Expires}) {
		t.Fatalf("pending: %+v", got)
	}
	fx.now = fx.now.Add(10 * time.Minute)
	fx.approve(t, redeemed.ApprovalID)
	if got := ask(redeemed.ApprovalID); got.Status != sep.ApprovalApproved || got.Reason != "quarter close" || !got.Expires.Equal(fx.now.Add(time.Hour)) {
		t.Fatalf("approved: %+v", got)
	}
	if idx, _ := fx.index.ListByPrincipal(context.Background(), "user:alice@example.com"); len(idx) != 0 {
		t.Fatalf("reading the status minted %d capabilities", len(idx))
	}
	issued(t, fx.redeem(t, redeemed.ApprovalID))
	if got := ask(redeemed.ApprovalID); got.Status != sep.ApprovalRedeemed {
		t.Fatalf("redeemed: %+v", got)
	}
	if _, err := fx.desk.Deny(context.Background(), denied.ApprovalID, dave, "no ticket"); err != nil {
		t.Fatal(err)
	}
	if got := ask(denied.ApprovalID); got.Status != sep.ApprovalDenied || got.Reason != "no ticket" {
		t.Fatalf("denied: %+v", got)
	}
	fx.now = fx.now.Add(2 * time.Hour)
	if got := ask(expired.ApprovalID); got.Status != sep.ApprovalExpired || got.Reason != "" {
		t.Fatalf("expired: %+v", got)
	}
	if n := len(fx.upstream.calls("")) - calls; n != 0 {
		t.Fatalf("the agent saw %d calls after the requests were made", n)
	}
}

// TestApprovalStatusRefusals: another principal's request, a request
// asked at another agent, and a gateway without an approval store all
// answer exactly as an unknown id does; bad params are invalid params.
// Nothing reaches the agent.
func TestApprovalStatusRefusals(t *testing.T) {
	fx := newApprovalFixture(t)
	pr := fx.pending(t, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`)
	unknown := fx.status(t, aliceKey, "documents", `{"approvalId":"apr_unknown"}`)
	if unknown.Error == nil || unknown.Error.Code != jsonrpc.CodeInvalidParams || unknown.Error.Message != "unknown approvalId" {
		t.Fatalf("unknown id: %+v", unknown.Error)
	}
	calls := len(fx.upstream.calls(""))
	tests := []struct {
		name, key, agent, params string
		noStore                  bool
		wantMsg                  string
	}{
		{"another principal", daveKey, "documents", `{"approvalId":"` + pr.ApprovalID + `"}`, false, ""},
		{"another agent", aliceKey, "summarizer", `{"approvalId":"` + pr.ApprovalID + `"}`, false, ""},
		{"no approval store", aliceKey, "documents", `{"approvalId":"` + pr.ApprovalID + `"}`, true, ""},
		{"no approval id", aliceKey, "documents", `{}`, false, "approvalId is required"},
		{"unknown member", aliceKey, "documents", `{"approvalId":"` + pr.ApprovalID + `","grants":["x"]}`, false, "invalid params"},
		{"not an object", aliceKey, "documents", `["` + pr.ApprovalID + `"]`, false, "invalid params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := fx.front.deps.Approvals
			if tt.noStore {
				fx.front.deps.Approvals = nil
				defer func() { fx.front.deps.Approvals = store }()
			}
			resp := fx.status(t, tt.key, tt.agent, tt.params)
			if tt.wantMsg == "" {
				if !reflect.DeepEqual(resp.Error, unknown.Error) || resp.Result != nil {
					t.Fatalf("got %+v %v, want the unknown-id answer %+v", resp.Error, resp.Result, unknown.Error)
				}
				return
			}
			if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(strings.ToLower(resp.Error.Message), strings.ToLower(tt.wantMsg)) {
				t.Fatalf("got %+v, want invalid params %q", resp.Error, tt.wantMsg)
			}
		})
	}
	if n := len(fx.upstream.calls("")) - calls; n != 0 {
		t.Fatalf("the agent saw %d calls", n)
	}
	if r, _ := fx.desk.Get(context.Background(), pr.ApprovalID); r.Status != approval.StatusPending {
		t.Fatalf("reading the status changed the request: %s", r.Status)
	}
}

// TestApprovalStatusWords: every status the store has is a status of the
// wire.
func TestApprovalStatusWords(t *testing.T) {
	for store, wire := range map[approval.Status]string{
		approval.StatusPending: sep.ApprovalPending, approval.StatusApproved: sep.ApprovalApproved,
		approval.StatusDenied: sep.ApprovalDenied, approval.StatusExpired: sep.ApprovalExpired,
		approval.StatusRedeemed: sep.ApprovalRedeemed,
	} {
		if string(store) != wire {
			t.Errorf("store status %q is %q on the wire", store, wire)
		}
	}
}

// FuzzApprovalStatusParams: whatever the params, the status method
// answers itself (never forwards), never with an internal error, and
// answers a status only for alice's own request.
func FuzzApprovalStatusParams(f *testing.F) {
	for _, seed := range []string{`{"approvalId":"$ID"}`, `{"approvalId":"apr_x"}`, `{}`, `{"approvalId":7}`,
		`{"approvalId":"$ID","approvalID":"$ID"}`, `null`, `[]`, `{"approvalId":"$ID","extra":{}}`, `"$ID"`} {
		f.Add(seed)
	}
	fx := newApprovalFixture(f)
	pr := fx.pending(f, `{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}`)
	f.Fuzz(func(t *testing.T, params string) {
		params = strings.ReplaceAll(params, "$ID", pr.ApprovalID)
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": sep.MethodApprovalStatus, "params": json.RawMessage(params)})
		if !json.Valid([]byte(params)) {
			return
		}
		if _, _, err := jsonrpc.Decode(body, fx.front.cfg.Limits); err != nil {
			return // the decoder's own refusals are covered by its fuzz target
		}
		out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents", string(body)))
		switch {
		case out.resp == nil || out.forward != nil:
			t.Fatalf("%s was not answered by the front", params)
		case out.resp.Error != nil && out.resp.Error.Code == jsonrpc.CodeInternal:
			t.Fatalf("%s answered internal error: %+v", params, out.resp.Error)
		case out.resp.Error == nil && statusResult(t, out.resp).ApprovalID != pr.ApprovalID:
			t.Fatalf("%s answered a status for another request: %v", params, out.resp.Result)
		}
	})
}
