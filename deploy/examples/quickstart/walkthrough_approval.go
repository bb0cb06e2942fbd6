package quickstart

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// approvalSteps show a grant that waits for a human: carol's HR write
// needs an approver in group security (dave).
func approvalSteps() []step {
	return []step{
		{"carol asks to write HR documents: the request waits for approval", stepApprovalPending},
		{"carol cannot approve her own request (403)", stepSelfApproval},
		{"dave (security) lists the waiting request and approves it", stepApprove},
		{"carol asks where her request stands: approved, with dave's reason", stepApprovalStatus},
		{"carol asks again with the approval id and receives the capability, once", stepRedeem},
		{"carol updates Salaries 2025 with the approved capability", stepApprovedUse},
		{"A second request is denied by dave: carol gets -32047 with his reason", stepApprovalDenied},
	}
}

// hrWrite is carol's request: write (which requires read) on collection hr.
var hrWrite = map[string]any{
	"grants": []string{"documents:read", "documents:write"}, "purpose": "Update the 2025 salary bands",
	"resourceQuery": map[string]any{"collection": "hr"},
}

// pendingAnswer is the result of a request that waits for approval.
type pendingAnswer struct {
	Status     string `json:"status"`
	ApprovalID string `json:"approvalId"`
	Expires    string `json:"expires"`
}

func (s *session) askHRWrite(ctx context.Context) (pendingAnswer, error) {
	var p pendingAnswer
	res, err := s.c.call(ctx, "documents", CarolKey, "a2a/capabilities/request", hrWrite)
	if err != nil {
		return p, err
	}
	if err := res.expectResult(); err != nil {
		return p, err
	}
	if json.Unmarshal(res.Result, &p) != nil || p.Status != "pending" || !strings.HasPrefix(p.ApprovalID, "apr_") {
		return p, fmt.Errorf("want a pending answer, got %s", res.Result)
	}
	return p, nil
}

func stepApprovalPending(ctx context.Context, s *session) (string, error) {
	p, err := s.askHRWrite(ctx)
	if err != nil {
		return "", err
	}
	s.approvalID = p.ApprovalID
	return fmt.Sprintf("a2a/capabilities/request documents:read + documents:write on hr\nresult: status %s, approvalId %s, expires %s\nnothing was issued; the policy's rule hr-editors-write-needs-approval names group security",
		p.Status, p.ApprovalID, p.Expires), nil
}

// admin calls the admin listener's approval routes as key.
func (s *session) admin(ctx context.Context, key, method, path, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.w.AdminURL+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := s.c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

func stepSelfApproval(ctx context.Context, s *session) (string, error) {
	status, body, err := s.admin(ctx, CarolKey, http.MethodPost, "/admin/approvals/"+s.approvalID+"/approve", `{"reason":"it is mine"}`)
	if err != nil {
		return "", err
	}
	if status != http.StatusForbidden {
		return "", fmt.Errorf("want 403, got HTTP %d: %s", status, body)
	}
	return fmt.Sprintf("POST /admin/approvals/%s/approve as carol  ->  HTTP %d %s", s.approvalID, status, strings.TrimSpace(string(body))), nil
}

func stepApprove(ctx context.Context, s *session) (string, error) {
	status, body, err := s.admin(ctx, DaveKey, http.MethodGet, "/admin/approvals?status=pending", "")
	if err != nil {
		return "", err
	}
	var list struct {
		Approvals []struct {
			ID, Principal, Purpose string
			Grants                 []struct {
				Grant      string
				Operations []string
				Resources  []struct{ DisplayName string }
			}
		}
	}
	if status != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Approvals) != 1 || list.Approvals[0].ID != s.approvalID {
		return "", fmt.Errorf("dave does not see the request: HTTP %d: %s", status, body)
	}
	a := list.Approvals[0]
	var what []string
	for _, g := range a.Grants {
		what = append(what, fmt.Sprintf("%s %s on %q", g.Grant, strings.Join(g.Operations, ","), g.Resources[0].DisplayName))
	}
	status, body, err = s.admin(ctx, DaveKey, http.MethodPost, "/admin/approvals/"+s.approvalID+"/approve", `{"reason":"change ticket SEC-1024"}`)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("approve: HTTP %d: %s", status, body)
	}
	return fmt.Sprintf("GET /admin/approvals?status=pending as dave: %s asks, purpose %q\n  %s\nPOST /admin/approvals/%s/approve {\"reason\":\"change ticket SEC-1024\"}  ->  HTTP %d",
		a.Principal, a.Purpose, strings.Join(what, "\n  "), s.approvalID, status), nil
}

// stepApprovalStatus reads the outcome without collecting it: the status
// method issues nothing and never reaches the agent.
func stepApprovalStatus(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", CarolKey, "a2a/capabilities/approval/status", map[string]any{"approvalId": s.approvalID})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	var st struct{ Status, Reason string }
	if json.Unmarshal(res.Result, &st) != nil || st.Status != "approved" || st.Reason != "change ticket SEC-1024" {
		return "", fmt.Errorf("want approved with dave's reason, got %s", res.Result)
	}
	return fmt.Sprintf("a2a/capabilities/approval/status {\"approvalId\": %q}\nresult: status %s, reason %q (nothing issued yet)", s.approvalID, st.Status, st.Reason), nil
}

func (s *session) redeem(ctx context.Context) (*rpcResult, error) {
	return s.c.call(ctx, "documents", CarolKey, "a2a/capabilities/request", map[string]any{"approvalId": s.approvalID})
}

func stepRedeem(ctx context.Context, s *session) (string, error) {
	res, err := s.redeem(ctx)
	if err != nil {
		return "", err
	}
	var out struct{ Capabilities []capability }
	if err := res.expectResult(); err != nil {
		return "", err
	}
	if json.Unmarshal(res.Result, &out) != nil || len(out.Capabilities) != 2 {
		return "", fmt.Errorf("want read and write, got %s", res.Result)
	}
	s.parent = &out.Capabilities[1]
	again, err := s.redeem(ctx)
	if err != nil {
		return "", err
	}
	if err := again.expectError(-32047, "grant_denied"); err != nil {
		return "", err
	}
	return fmt.Sprintf("params {\"approvalId\": %q}\n%s: %s on %s\n%s: %s on %s\nasking a second time: error %d: %s",
		s.approvalID, out.Capabilities[0].Grant, strings.Join(out.Capabilities[0].Operations, ","), out.Capabilities[0].names(),
		s.parent.Grant, strings.Join(s.parent.Operations, ","), s.parent.names(), again.Error.Code, again.Error.Message), nil
}

func stepApprovedUse(ctx context.Context, s *session) (string, error) {
	res, err := s.c.call(ctx, "documents", CarolKey, "a2a/skill/invoke", map[string]any{
		"skill": "update_document", "capabilityId": s.parent.ID,
		"arguments": map[string]any{"resourceHandle": s.parent.handle("Salaries 2025"), "content": "2025 salary bands, revised"},
	})
	if err != nil {
		return "", err
	}
	if err := res.expectResult(); err != nil {
		return "", err
	}
	var doc struct{ Title string }
	_ = json.Unmarshal(res.Result, &doc)
	return fmt.Sprintf("update_document on %q: ok", doc.Title), nil
}

func stepApprovalDenied(ctx context.Context, s *session) (string, error) {
	p, err := s.askHRWrite(ctx)
	if err != nil {
		return "", err
	}
	s.approvalID = p.ApprovalID
	status, body, err := s.admin(ctx, DaveKey, http.MethodPost, "/admin/approvals/"+p.ApprovalID+"/deny", `{"reason":"no change ticket"}`)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("deny: HTTP %d: %s", status, body)
	}
	res, err := s.redeem(ctx)
	if err != nil {
		return "", err
	}
	if err := res.expectError(-32047, "grant_denied"); err != nil {
		return "", err
	}
	var data struct {
		ApproverReason string `json:"approverReason"`
	}
	if json.Unmarshal(res.Error.Data, &data) != nil || data.ApproverReason != "no change ticket" {
		return "", fmt.Errorf("the denial does not carry dave's reason: %s", res.Error.Data)
	}
	return fmt.Sprintf("dave denies %s; carol asks again: error %d: %s", p.ApprovalID, res.Error.Code, res.Error.Message), nil
}
