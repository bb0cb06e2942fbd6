package console

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

// Approvals is the approval store as the console uses it; an
// approval.Store is one. Decisions carry the signed-in operator as the
// policy sees them (id and groups, as authenticated at sign-in), so that
// the store itself refuses an operator who is not an approver of the
// request (approval.ErrNotApprover) or who asked for it
// (approval.ErrSelfApproval).
type Approvals interface {
	// List returns the requests f selects, newest first. An error for
	// which approval.Partial is true names stored requests that fail
	// their MAC and comes with every request that verifies.
	List(ctx context.Context, f approval.Filter) ([]approval.Request, error)
	// Get returns request id.
	Get(ctx context.Context, id string) (approval.Request, error)
	// Approve approves request id on behalf of approver, with a reason.
	Approve(ctx context.Context, id string, approver policy.Principal, reason string) (approval.Request, error)
	// Deny denies request id on behalf of approver, with a reason.
	Deny(ctx context.Context, id string, approver policy.Principal, reason string) (approval.Request, error)
}

// maxReason bounds an approver's reason.
const maxReason = 500

// maxPendingShown bounds the requests the approvals page shows.
const maxPendingShown = 200

// pendingView is one waiting request as the page shows it: exactly what
// would be issued, resources by display name only.
type pendingView struct {
	ID, Principal, Agent, Purpose, PolicyRevision string
	// ActionHash is the hash of exactly what approving it issues: who,
	// where, why, under which revision, and the grants as shown.
	ActionHash         string
	Grants             []grantView
	Requested, Expires time.Time
	// Approvers names who may decide, e.g. "group security".
	Approvers string
	// Note tells the operator why they cannot decide it; empty when they
	// can, and only then are the Approve and Deny buttons shown.
	Note string
}

// grantView is one capability the request would be issued.
type grantView struct {
	Grant, Rule string
	Operations  []string
	Resources   []string
	// Lifetime is the capability's life, for people ("15 min").
	Lifetime   string
	Depth      int
	Attenuable bool
	// Approvers names who must approve this grant, e.g. "group security":
	// the grant that asked for approval. Empty for a grant that rides
	// along with one that did.
	Approvers string
}

type approvalsView struct {
	Configured bool
	Pending    []pendingView
	// History is the newest requests the operator may see that are no
	// longer pending (see maxHistoryShown); MoreHistory says older ones
	// exist.
	History     []historyView
	MoreHistory bool
	// Forged names, to admins, the stored requests that fail their MAC,
	// the first maxUnreadableShown of them, of ForgedCount; MoreForged
	// counts the rest.
	Forged                  []string
	ForgedCount, MoreForged int
	// Truncated says that more requests the operator may see wait than
	// the page shows (the newest maxPendingShown).
	Truncated bool
	Shown     int
	Error     string
	Done      string
	CSRF      string
}

func (c *Console) approvalsPage(w http.ResponseWriter, r *http.Request, op operator) {
	c.showApprovals(w, r, op, http.StatusOK, doneMessage(r.URL.Query().Get("done")), "")
}

func (c *Console) showApprovals(w http.ResponseWriter, r *http.Request, op operator, status int, done, msg string) {
	v := approvalsView{Configured: c.deps.Approvals != nil, CSRF: op.CSRF, Done: done, Error: msg}
	if v.Configured {
		list, forged, err := c.listPending(r.Context(), op)
		if len(list) > maxPendingShown {
			list, v.Truncated, v.Shown = list[:maxPendingShown], true, maxPendingShown
		}
		if op.IsAdmin() {
			v.Forged, v.ForgedCount = forged[:min(len(forged), maxUnreadableShown)], len(forged)
			v.MoreForged = len(forged) - len(v.Forged)
		}
		for i := range list {
			if pv, ok := viewPending(&list[i], op); ok {
				v.Pending = append(v.Pending, pv)
			}
		}
		if err == nil {
			v.History, v.MoreHistory, err = c.history(r.Context(), op)
		}
		if err != nil {
			c.deps.Logger.ErrorContext(r.Context(), "console: listing approvals failed", "error", err)
			v.Error, status = "The approval store is unavailable.", http.StatusServiceUnavailable
		}
	}
	c.render(w, status, "approvals", view{Title: "Approvals", Nav: "approvals", Op: &op, Page: v})
}

// listPending lists the pending requests op may see, newest first, one
// more than the page shows so that it can say more wait, with the ids of
// stored requests that fail their MAC, whatever status they claim (logged
// at warn: they were tampered with). What op may see is filtered before
// the limit, so newer requests op may not see never push out one it may.
// Any other store error, even one that also names forged records, fails
// the listing.
func (c *Console) listPending(ctx context.Context, op operator) ([]approval.Request, []string, error) {
	list, err := c.deps.Approvals.List(ctx, approval.Filter{Status: approval.StatusPending, Limit: maxPendingShown + 1,
		Keep: func(r *approval.Request) bool { return visible(r, op) }})
	forged, partial := approval.Partial(err)
	if err != nil && !partial {
		return nil, nil, err
	}
	if partial {
		c.deps.Logger.WarnContext(ctx, "console: stored approval requests fail their MAC; they were tampered with",
			"operator", op.principal().ID, "count", len(forged), "error", err)
	}
	return list, forged, nil
}

// viewPending renders r for op. Admins see every pending request;
// approvers see those whose rules name them (their own included, which
// someone else must decide).
func viewPending(r *approval.Request, op operator) (pendingView, bool) {
	if !visible(r, op) {
		return pendingView{}, false
	}
	err := r.MayDecide(op.principal())
	pub := r.Public()
	v := pendingView{ID: pub.ID, Principal: pub.Principal, Agent: pub.Agent, Purpose: pub.Purpose,
		PolicyRevision: pub.PolicyRevision, ActionHash: pub.ActionHash, Requested: pub.CreatedAt, Expires: pub.Deadline,
		Approvers: approversOf(&pub), Grants: viewGrants(&pub)}
	if v.ActionHash == "" { // stored by an earlier gateway: approving binds it to this
		v.ActionHash = r.ComputeActionHash()
	}
	switch {
	case errors.Is(err, approval.ErrSelfApproval):
		v.Note = "This is your own request: another approver must decide it."
	case err != nil:
		v.Note = "You are not an approver of this request: only " + v.Approvers + " may decide it."
	}
	return v, true
}

// viewGrants renders the grants of r, a request's public copy.
func viewGrants(r *approval.Request) []grantView {
	out := make([]grantView, 0, len(r.Grants))
	for _, g := range r.Grants {
		gv := grantView{Grant: g.Grant, Rule: g.Rule, Operations: g.Operations, Lifetime: approval.HumanDuration(g.TTL),
			Depth: g.MaxDepth, Attenuable: g.Attenuable}
		if g.Approvers != nil {
			gv.Approvers = g.Approvers.String()
		}
		for _, res := range g.Resources {
			gv.Resources = append(gv.Resources, res.DisplayName)
		}
		out = append(out, gv)
	}
	return out
}

// visible reports whether op may see r: admins see every request,
// approvers those whose rules name them.
func visible(r *approval.Request, op operator) bool {
	return op.IsAdmin() || !errors.Is(r.MayDecide(op.principal()), approval.ErrNotApprover)
}

// approversOf names everyone who may decide r, each set once.
func approversOf(r *approval.Request) string {
	var parts []string
	for _, a := range r.Approvers() {
		if s := a.String(); !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " and ")
}

// decide approves or denies one request as the signed-in operator, with
// their reason; the store enforces who may.
func (c *Console) decide(w http.ResponseWriter, r *http.Request, op operator) {
	if c.deps.Approvals == nil {
		c.fail(w, http.StatusNotFound, "No approval store is configured.")
		return
	}
	id, reason := r.PostFormValue("id"), strings.TrimSpace(r.PostFormValue("reason"))
	decide := c.deps.Approvals.Deny
	switch r.PostFormValue("decision") {
	case "approve":
		decide = c.deps.Approvals.Approve
	case "deny":
	default:
		c.showApprovals(w, r, op, http.StatusBadRequest, "", "Choose approve or deny.")
		return
	}
	if reason == "" || len(reason) > maxReason {
		c.showApprovals(w, r, op, http.StatusBadRequest, "", "Give a reason of at most 500 bytes: it goes to the audit trail, and to the requester when denied; nothing was decided.")
		return
	}
	err := c.sawAction(r.Context(), id, r.PostFormValue("action"), op)
	if err == nil {
		_, err = decide(r.Context(), id, op.principal(), reason)
	}
	if err == nil {
		http.Redirect(w, r, "/console/approvals?done="+r.PostFormValue("decision"), http.StatusSeeOther)
		return
	}
	status, msg := decisionRefusal(err)
	if status == http.StatusServiceUnavailable {
		c.deps.Logger.ErrorContext(r.Context(), "console: decision failed", "error", err)
	}
	c.showApprovals(w, r, op, status, "", msg)
}

// sawAction checks that the action hash the operator's form carried is
// the one request id holds, so that the decision is on exactly what the
// page showed them. A request op may not decide, or no longer pending,
// is left to the decision to refuse, as it would be without a hash.
func (c *Console) sawAction(ctx context.Context, id, seen string, op operator) error {
	req, err := c.deps.Approvals.Get(ctx, id)
	switch {
	case err != nil:
		return err
	case req.Status != approval.StatusPending || req.MayDecide(op.principal()) != nil:
		return nil
	}
	return req.Seen(seen)
}

// decisionRefusal is the status and the page's message for a decision the
// store refused.
func decisionRefusal(err error) (int, string) {
	switch {
	case errors.Is(err, approval.ErrSelfApproval):
		return http.StatusForbidden, "You cannot decide your own request: another approver must. Nothing was decided."
	case errors.Is(err, approval.ErrNotApprover):
		return http.StatusForbidden, "You are not an approver of that request: the policy rule that asked for approval does not name you or your groups. Nothing was decided."
	case errors.Is(err, approval.ErrNotPending):
		return http.StatusConflict, "That request was already decided."
	case errors.Is(err, approval.ErrExpired):
		return http.StatusConflict, "That request expired before it was decided."
	case errors.Is(err, approval.ErrNotFound):
		return http.StatusNotFound, "There is no such request."
	case errors.Is(err, approval.ErrOtherAction):
		return http.StatusConflict, "That request holds another action than the one this page showed you: reload the page and read it again. Nothing was decided."
	case errors.Is(err, approval.ErrActionChanged):
		return http.StatusConflict, "That request no longer holds the action its hash covers: it was changed in the store. Nothing was decided."
	}
	return http.StatusServiceUnavailable, "The decision could not be recorded; nothing changed."
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
