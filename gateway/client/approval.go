package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/capgate/capgate/gateway/sep"
)

// MethodApprovalStatus is the read-only status method of requests waiting
// for human approval.
const MethodApprovalStatus = sep.MethodApprovalStatus

// ErrApprovalPending means the request was accepted but waits for a human
// approver: nothing was issued yet. errors.As gives the *PendingError with
// the approval id to follow.
var ErrApprovalPending = errors.New("client: the request waits for human approval")

// PendingError is the answer to a request that the policy lets through
// only once a human approves it. Follow it with ApprovalStatus, and
// collect the capabilities with Redeem once approved.
type PendingError struct {
	// ApprovalID names the waiting request ("apr_…").
	ApprovalID string
	// Expires is when it lapses unless approved (and, once approved,
	// redeemed).
	Expires time.Time
}

// Error renders "client: the request waits for human approval (apr_…)".
func (e *PendingError) Error() string {
	return ErrApprovalPending.Error() + " (" + e.ApprovalID + ")"
}

// Is reports whether target is ErrApprovalPending.
func (e *PendingError) Is(target error) bool { return target == ErrApprovalPending }

// ApprovalStatus is where a request waiting for human approval stands:
// Status is sep.ApprovalPending, ApprovalApproved, ApprovalDenied,
// ApprovalExpired or ApprovalRedeemed, and Reason the approver's reason
// once decided.
type ApprovalStatus = sep.ApprovalStatusResult

// ApprovalStatus asks where the caller's own request approvalID stands
// (a2a/capabilities/approval/status). It never issues anything. An id that
// is unknown, or another principal's, is an *RPCError matching
// ErrInvalidParams.
func (c *Client) ApprovalStatus(ctx context.Context, approvalID string) (ApprovalStatus, error) {
	if approvalID == "" {
		return ApprovalStatus{}, fmt.Errorf("%w: ApprovalStatus needs an approval id", ErrInvalidArgument)
	}
	raw, err := c.call(ctx, MethodApprovalStatus, sep.ApprovalStatusParams{ApprovalID: approvalID})
	if err != nil {
		return ApprovalStatus{}, err
	}
	var res ApprovalStatus
	if err := decodeResult(MethodApprovalStatus, raw, &res); err != nil {
		return ApprovalStatus{}, err
	}
	if res.ApprovalID != approvalID || res.Status == "" {
		return ApprovalStatus{}, fmt.Errorf("%w: %s answered for %q with status %q", ErrMalformedResponse, MethodApprovalStatus, res.ApprovalID, res.Status)
	}
	return res, nil
}

// Redeem collects the capabilities of an approved request
// (a2a/capabilities/request with its approvalId), once: exactly what was
// approved, narrowed to what the policy in force still allows. While
// nobody has decided, the answer is a *PendingError again; a denied,
// expired or already redeemed request is an *RPCError matching
// ErrGrantDenied (a denial carries the approver's reason in Data).
func (c *Client) Redeem(ctx context.Context, approvalID string) ([]Capability, error) {
	if approvalID == "" {
		return nil, fmt.Errorf("%w: Redeem needs an approval id", ErrInvalidArgument)
	}
	raw, err := c.call(ctx, MethodRequest, sep.RequestParams{ApprovalID: approvalID})
	if err != nil {
		return nil, err
	}
	return issuedOrPending(raw)
}

// issuedOrPending decodes the result of a2a/capabilities/request: the
// issued capabilities, or a *PendingError when the request waits for a
// human.
func issuedOrPending(raw json.RawMessage) ([]Capability, error) {
	var res struct {
		sep.CapabilitiesResult
		Status     string    `json:"status"`
		ApprovalID string    `json:"approvalId"`
		Expires    time.Time `json:"expires"`
	}
	if err := decodeResult(MethodRequest, raw, &res); err != nil {
		return nil, err
	}
	if res.Status == sep.StatusPending {
		if res.ApprovalID == "" {
			return nil, fmt.Errorf("%w: %s answered pending without an approval id", ErrMalformedResponse, MethodRequest)
		}
		return nil, &PendingError{ApprovalID: res.ApprovalID, Expires: res.Expires}
	}
	if len(res.Capabilities) == 0 {
		return nil, fmt.Errorf("%w: %s issued no capability", ErrMalformedResponse, MethodRequest)
	}
	for _, capb := range res.Capabilities {
		if err := checkIssued(capb); err != nil {
			return nil, err
		}
	}
	return res.Capabilities, nil
}
