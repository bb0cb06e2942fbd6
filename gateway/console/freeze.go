package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/freeze"
)

// Freezer is the emergency stop; the admin API is one, so that a freeze
// from the console revokes and audits exactly as POST /admin/freeze.
type Freezer interface {
	Freeze(ctx context.Context, admin, kind, name, reason string) (*admin.FreezeResult, error)
	Unfreeze(ctx context.Context, admin, kind, name, reason string) (freeze.Entry, error)
	Frozen() []freeze.Entry
}

// freezeView is the freeze page: what is frozen, and the form.
type freezeView struct {
	Frozen []freeze.Entry
	Done   string
	CSRF   string
	// Enabled is false when the gateway has no freeze list.
	Enabled bool
}

// freezePage lists what is frozen, by whom and why, beside the form that
// freezes an agent or a principal.
func (c *Console) freezePage(w http.ResponseWriter, r *http.Request, op operator) {
	v := freezeView{CSRF: op.CSRF, Done: r.URL.Query().Get("done"), Enabled: c.deps.Freezer != nil}
	if v.Enabled {
		v.Frozen = c.deps.Freezer.Frozen()
	}
	switch v.Done {
	case "freeze", "unfreeze", "":
	default:
		v.Done = "" // only the console's own redirects say what was done
	}
	c.render(w, http.StatusOK, "freeze", view{Title: "Emergency stop", Nav: "freeze", Op: &op, Page: v})
}

// freezePost freezes or unfreezes (form field "action") as the signed-in
// operator, through the admin API's path.
func (c *Console) freezePost(w http.ResponseWriter, r *http.Request, op operator) {
	if c.deps.Freezer == nil {
		c.fail(w, http.StatusNotImplemented, "This gateway has no freeze list.")
		return
	}
	kind, name, reason := clip(r.PostFormValue("kind")), clip(r.PostFormValue("name")), clip(r.PostFormValue("reason"))
	var err error
	action := r.PostFormValue("action")
	switch action {
	case "freeze":
		var res *admin.FreezeResult
		res, err = c.deps.Freezer.Freeze(r.Context(), op.Principal, kind, name, reason)
		if res != nil && err != nil {
			c.deps.Logger.ErrorContext(r.Context(), "console: freeze incomplete", "error", err)
			c.fail(w, http.StatusServiceUnavailable, fmt.Sprintf("The %s %s is frozen on this replica, but not everything was "+
				"stored or revoked (%d revoked so far). Freeze again to complete.", kind, name, res.Revoked))
			return
		}
	case "unfreeze":
		_, err = c.deps.Freezer.Unfreeze(r.Context(), op.Principal, kind, name, reason)
	default:
		c.fail(w, http.StatusBadRequest, "Say freeze or unfreeze.")
		return
	}
	switch {
	case errors.Is(err, freeze.ErrInvalid):
		c.fail(w, http.StatusBadRequest, "Name an agent or a principal and give a reason: "+err.Error())
	case errors.Is(err, freeze.ErrNotFrozen):
		c.fail(w, http.StatusNotFound, "That is not frozen.")
	case err != nil:
		c.deps.Logger.ErrorContext(r.Context(), "console: freeze list failed", "error", err)
		c.fail(w, http.StatusServiceUnavailable, "The freeze list is unavailable; nothing was done. Try again.")
	default:
		http.Redirect(w, r, "/console/freeze?done="+action, http.StatusSeeOther)
	}
}
