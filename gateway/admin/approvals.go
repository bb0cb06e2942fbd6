package admin

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/policy"
)

// maxReason bounds an approver's reason.
const maxReason = 1024

// defaultListed and maxListed bound a listing of approvals.
const (
	defaultListed = 100
	maxListed     = 500
)

func (a *API) approvalRoutes(r chi.Router) {
	r.Get("/admin/approvals", a.listApprovals)
	r.Get("/admin/approvals/{id}", a.getApproval)
	r.Post("/admin/approvals/{id}/approve", a.decideApproval(true))
	r.Post("/admin/approvals/{id}/deny", a.decideApproval(false))
}

// caller is the authenticated principal as policy sees it, and whether it
// is an admin.
func (a *API) caller(r *http.Request) (policy.Principal, bool) {
	p, ok := authn.PrincipalFrom(r.Context())
	if !ok {
		return policy.Principal{}, false
	}
	acc := a.cfg.Access
	isAdmin := slices.Contains(acc.Principals, p.ID) || slices.ContainsFunc(acc.Groups, p.HasGroup)
	return policy.Principal{ID: p.ID, Issuer: p.Issuer, Groups: p.Groups, Claims: p.Claims}, isAdmin
}

// sees reports whether who may read r: admins read everything, anyone
// else the requests whose rules name them as an approver.
func sees(r *approval.Request, who policy.Principal, isAdmin bool) bool {
	return isAdmin || !errors.Is(r.MayDecide(who), approval.ErrNotApprover)
}

// listApprovals answers {"approvals", "more", "forged"}: the newest
// requests the caller may see that match the filter (limit, default 100,
// at most 500), whether more of them exist, and, to admins, the ids of stored requests that fail their MAC
// (tampered with, or written without the key), whatever the filter, empty
// when none. Such a request is never decided or redeemed; it is named, and
// logged at warn, never hidden, and the answer stays 200. Anyone else gets
// an empty "forged": a forged record's fields cannot say who may see it.
// Any other store error, even one that also names forged records, is a 503.
func (a *API) listApprovals(w http.ResponseWriter, r *http.Request) {
	if a.deps.Approvals == nil {
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "no approval store"})
		return
	}
	who, isAdmin := a.caller(r)
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit = min(limit, maxListed); limit <= 0 {
		limit = defaultListed
	}
	// The caller's view is filtered before the limit (one more than asked
	// tells whether more exist), so that no request the caller may see
	// gives way to newer ones it may not.
	list, err := a.deps.Approvals.List(r.Context(), approval.Filter{
		Status: approval.Status(q.Get("status")), Principal: q.Get("principal"), Limit: limit + 1,
		Keep: func(req *approval.Request) bool { return sees(req, who, isAdmin) }})
	forged, partial := approval.Partial(err)
	switch {
	case err != nil && !partial:
		a.deps.Logger.ErrorContext(r.Context(), "approval store unavailable", "error", err)
		writeJSONStatus(w, http.StatusServiceUnavailable, map[string]string{"error": "approval store unavailable"})
		return
	case err != nil:
		a.deps.Logger.WarnContext(r.Context(), "admin: stored approval requests fail their MAC; they were tampered with",
			"caller", who.ID, "count", len(forged), "error", err)
	}
	if !isAdmin {
		forged = nil
	}
	more := len(list) > limit
	out := []approval.Shown{}
	for _, req := range list[:min(len(list), limit)] {
		out = append(out, req.Show())
	}
	writeJSONStatus(w, http.StatusOK, map[string]any{"approvals": out, "more": more, "forged": append([]string{}, forged...)})
}

func (a *API) getApproval(w http.ResponseWriter, r *http.Request) {
	if a.deps.Approvals == nil {
		writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "no approval store"})
		return
	}
	who, isAdmin := a.caller(r)
	req, err := a.deps.Approvals.Get(r.Context(), chi.URLParam(r, "id"))
	if err == nil && !sees(&req, who, isAdmin) {
		err = approval.ErrNotFound
	}
	if err != nil {
		a.approvalError(w, r, err)
		return
	}
	writeJSONStatus(w, http.StatusOK, req.Show())
}

// decisionRequest is the body of approve and deny.
type decisionRequest struct {
	Reason string `json:"reason"`
	// ActionHash, when given, is the action hash the approver was shown:
	// the decision is refused (409) unless the request holds it.
	ActionHash string `json:"actionHash,omitempty"`
}

func (a *API) decideApproval(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.deps.Approvals == nil {
			writeJSONStatus(w, http.StatusNotImplemented, map[string]string{"error": "no approval store"})
			return
		}
		var body decisionRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, maxAdminBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil || strings.TrimSpace(body.Reason) == "" || len(body.Reason) > maxReason {
			writeJSONStatus(w, http.StatusBadRequest, map[string]string{
				"error": "body must be JSON {\"reason\": \"...\"} with a reason of 1 to " + strconv.Itoa(maxReason) + " bytes"})
			return
		}
		who, isAdmin := a.caller(r)
		if body.ActionHash != "" {
			// Only for who may read the request: anyone else is refused by
			// the decision itself, as without a hash.
			req, err := a.deps.Approvals.Get(r.Context(), chi.URLParam(r, "id"))
			if err == nil && sees(&req, who, isAdmin) {
				err = req.Seen(body.ActionHash)
			}
			if err != nil {
				a.approvalError(w, r, err)
				return
			}
		}
		decide := a.deps.Approvals.Deny
		if approve {
			decide = a.deps.Approvals.Approve
		}
		req, err := decide(r.Context(), chi.URLParam(r, "id"), who, body.Reason)
		if err != nil {
			a.approvalError(w, r, err)
			return
		}
		writeJSONStatus(w, http.StatusOK, req.Show())
	}
}

// approvalError maps the store's errors to statuses.
func (a *API) approvalError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusServiceUnavailable
	switch {
	case errors.Is(err, approval.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, approval.ErrSelfApproval), errors.Is(err, approval.ErrNotApprover):
		status = http.StatusForbidden
	case errors.Is(err, approval.ErrNotPending), errors.Is(err, approval.ErrExpired), errors.Is(err, approval.ErrOtherAction):
		status = http.StatusConflict
	case errors.Is(err, approval.ErrActionChanged):
		a.deps.Logger.WarnContext(r.Context(), "admin: a stored approval request no longer matches its action hash", "error", err)
		writeJSONStatus(w, http.StatusConflict, map[string]string{"error": "the request no longer holds the action its hash covers: nothing was decided"})
		return
	default:
		a.deps.Logger.ErrorContext(r.Context(), "approval store unavailable", "error", err)
		writeJSONStatus(w, status, map[string]string{"error": "approval store unavailable"})
		return
	}
	writeJSONStatus(w, status, map[string]string{"error": strings.TrimPrefix(err.Error(), "approval: ")})
}
