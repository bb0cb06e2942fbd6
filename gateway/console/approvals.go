package console

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// ErrSelfApproval is what an Approvals store returns when an approver
// decides their own request; the page says so.
var ErrSelfApproval = errors.New("console: approvers cannot decide their own requests")

// ErrNotPending is what an Approvals store returns for an id that is not
// waiting any more (decided, redeemed, expired or unknown).
var ErrNotPending = errors.New("console: the request is not pending")

// PendingApproval is one capability request waiting for a human: exactly
// what would be issued, by display name only.
type PendingApproval struct {
	// ID is the approval id (never a token or a capability id).
	ID string
	// Principal asks; Agent, Grant, Operations, Resources (display names),
	// TTL and Depth are what would be issued.
	Principal  string
	Agent      string
	Grant      string
	Operations []string
	Resources  []string
	TTL        time.Duration
	Depth      int
	Purpose    string
	// Rule and PolicyRevision are the policy rule that asked for approval
	// and the revision it was decided under.
	Rule           string
	PolicyRevision string
	// Approvers names who may decide (groups or principals).
	Approvers []string
	Requested time.Time
	Expires   time.Time
}

// Approvals is the approval store as the console uses it.
type Approvals interface {
	// List returns the pending requests the approver may see.
	List(ctx context.Context) ([]PendingApproval, error)
	// Approve approves request id for approver with a reason.
	Approve(ctx context.Context, id, approver, reason string) error
	// Deny denies request id for approver with a reason.
	Deny(ctx context.Context, id, approver, reason string) error
}

// maxReason bounds an approver's reason.
const maxReason = 500

type approvalsView struct {
	Configured bool
	Pending    []PendingApproval
	Error      string
	Done       string
	CSRF       string
}

func (c *Console) approvalsPage(w http.ResponseWriter, r *http.Request, op operator) {
	c.showApprovals(w, r, op, http.StatusOK, doneMessage(r.URL.Query().Get("done")), "")
}

func (c *Console) showApprovals(w http.ResponseWriter, r *http.Request, op operator, status int, done, msg string) {
	v := approvalsView{Configured: c.deps.Approvals != nil, CSRF: op.CSRF, Done: done, Error: msg}
	if v.Configured {
		list, err := c.deps.Approvals.List(r.Context())
		if err != nil {
			c.deps.Logger.ErrorContext(r.Context(), "console: listing approvals failed", "error", err)
			v.Error, status = "The approval store is unavailable.", http.StatusServiceUnavailable
		}
		v.Pending = list
	}
	c.render(w, status, "approvals", view{Title: "Pending approvals", Nav: "approvals", Op: &op, Page: v})
}

// decide approves or denies one request, with the approver's reason.
func (c *Console) decide(w http.ResponseWriter, r *http.Request, op operator) {
	if c.deps.Approvals == nil {
		c.fail(w, http.StatusNotFound, "No approval store is configured.")
		return
	}
	id, reason := r.PostFormValue("id"), strings.TrimSpace(r.PostFormValue("reason"))
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	var err error
	switch r.PostFormValue("decision") {
	case "approve":
		err = c.deps.Approvals.Approve(r.Context(), id, op.Principal, reason)
	case "deny":
		err = c.deps.Approvals.Deny(r.Context(), id, op.Principal, reason)
	default:
		c.showApprovals(w, r, op, http.StatusBadRequest, "", "Choose approve or deny.")
		return
	}
	switch {
	case errors.Is(err, ErrSelfApproval):
		c.showApprovals(w, r, op, http.StatusForbidden, "", "You cannot decide your own request.")
	case errors.Is(err, ErrNotPending):
		c.showApprovals(w, r, op, http.StatusConflict, "", "That request is no longer pending.")
	case err != nil:
		c.deps.Logger.ErrorContext(r.Context(), "console: decision failed", "error", err)
		c.showApprovals(w, r, op, http.StatusServiceUnavailable, "", "The decision could not be recorded; nothing changed.")
	default:
		http.Redirect(w, r, "/console/approvals?done="+r.PostFormValue("decision"), http.StatusSeeOther)
	}
}

// doneMessage turns a redirect's done parameter into a fixed message, so
// that no query text is ever echoed.
func doneMessage(done string) string {
	switch done {
	case "approve":
		return "Approved."
	case "deny":
		return "Denied."
	case "revoke":
		return "Revoked, with every descendant."
	}
	return ""
}
