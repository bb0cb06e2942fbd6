package sep

import "time"

// MethodApprovalStatus tells the principal who asked for a capability that
// waits for human approval where the request stands. It is read-only: it
// never issues anything (a2a/capabilities/request with the approvalId
// does) and never reaches the agent.
const MethodApprovalStatus = "a2a/capabilities/approval/status"

// Approval statuses of ApprovalStatusResult.Status.
const (
	// ApprovalPending: nobody has decided yet.
	ApprovalPending = StatusPending
	// ApprovalApproved: approved; a2a/capabilities/request with the
	// approvalId issues the capabilities, once, before Expires.
	ApprovalApproved = "approved"
	// ApprovalDenied: an approver denied it; Reason says why.
	ApprovalDenied = "denied"
	// ApprovalExpired: nobody decided, or nobody redeemed the approval,
	// before Expires.
	ApprovalExpired = "expired"
	// ApprovalRedeemed: approved, and its capabilities already issued.
	ApprovalRedeemed = "redeemed"
)

// ApprovalStatusParams are the params of a2a/capabilities/approval/status.
type ApprovalStatusParams struct {
	// ApprovalID is the approvalId of the PendingResult.
	ApprovalID string `json:"approvalId"`
}

// ApprovalStatusResult is the result of a2a/capabilities/approval/status.
type ApprovalStatusResult struct {
	// Status is one of ApprovalPending, ApprovalApproved, ApprovalDenied,
	// ApprovalExpired and ApprovalRedeemed.
	Status string `json:"status"`
	// ApprovalID echoes the request's id.
	ApprovalID string `json:"approvalId"`
	// Expires is when a pending request lapses undecided, or an approved
	// one unredeemed.
	Expires time.Time `json:"expires"`
	// Reason is the approver's reason once the request is decided.
	Reason string `json:"reason,omitempty"`
}
