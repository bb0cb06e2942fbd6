package console

import (
	"context"
	"errors"
	"net/http"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/revocation"
)

// maxFilter bounds a filter field taken from the query.
const maxFilter = 256

// maxUnreadableShown bounds the ids of unreadable or forged records one
// page names.
const maxUnreadableShown = 100

type capabilitiesView struct {
	Filter capindex.Filter
	// Trees are the live capabilities' delegation trees, roots first.
	Trees []*node
	// Count is how many capabilities the trees show; Ended how many
	// listed ones are not shown because they were revoked or expired.
	Count, Ended int
	Truncated    bool
	// Unreadable names the live capabilities whose index records could
	// not be read, the first maxUnreadableShown of them, of
	// UnreadableCount; MoreUnreadable counts the rest.
	Unreadable                      []string
	UnreadableCount, MoreUnreadable int
	Done                            string
	Error                           string
}

// capabilitiesPage lists the live capabilities matching the filter, each
// root with its delegation tree; revoked and expired ones are left out
// and counted.
func (c *Console) capabilitiesPage(w http.ResponseWriter, r *http.Request, op operator) {
	q := r.URL.Query()
	f := capindex.Filter{Principal: clip(q.Get("principal")), Agent: clip(q.Get("agent")), Grant: clip(q.Get("grant"))}
	v := capabilitiesView{Filter: f, Done: doneMessage(q.Get("done"))}
	status := http.StatusOK
	roots, n, unreadable, err := c.forestOf(r.Context(), f)
	if err != nil {
		c.deps.Logger.ErrorContext(r.Context(), "console: listing capabilities failed", "error", err)
		v.Error, status = "The capability index is unavailable.", http.StatusServiceUnavailable
	}
	v.Truncated = n >= f.Max()
	v.Trees, v.Count, v.Ended = prune(roots, c.deps.Now())
	v.Unreadable, v.UnreadableCount = unreadable[:min(len(unreadable), maxUnreadableShown)], len(unreadable)
	v.MoreUnreadable = len(unreadable) - len(v.Unreadable)
	c.render(w, status, "capabilities", view{Title: "Live capabilities", Nav: "capabilities", Op: &op, Page: v})
}

// forestOf lists the capabilities matching f and links them into trees,
// with the ids of those whose records the index could not read (logged
// at warn: they may be live). Any other index error, even one that also
// names unreadable records, fails the listing.
func (c *Console) forestOf(ctx context.Context, f capindex.Filter) ([]*node, int, []string, error) {
	recs, err := c.deps.Index.List(ctx, f)
	unreadable, partial := capindex.Partial(err)
	if err != nil && !partial {
		return nil, 0, nil, err
	}
	if partial {
		c.deps.Logger.WarnContext(ctx, "console: capability records could not be read; they may be live",
			"principal", f.Principal, "agent", f.Agent, "grant", f.Grant, "count", len(unreadable), "error", err)
	}
	nodes := make([]*node, 0, len(recs))
	for _, rec := range recs {
		nodes = append(nodes, c.describe(ctx, rec))
	}
	return forest(nodes), len(recs), unreadable, nil
}

type revokeView struct {
	Node        *node
	Descendants int
	// AtLeast says the count may be short: the listing hit its bound, or
	// Unreadable of the principal's records could not be read.
	AtLeast    bool
	Unreadable int
	CSRF       string
}

// revokeConfirm shows one capability and, while revoking it can still
// change something, what a revocation would end before it is done.
func (c *Console) revokeConfirm(w http.ResponseWriter, r *http.Request, op operator) {
	id := clip(r.URL.Query().Get("id"))
	rec, err := c.deps.Index.Get(r.Context(), id)
	if err != nil {
		c.indexError(w, r, err)
		return
	}
	f := capindex.Filter{Principal: rec.Principal}
	roots, n, unreadable, err := c.forestOf(r.Context(), f)
	if err != nil {
		c.indexError(w, r, err)
		return
	}
	target := find(roots, id)
	if target == nil {
		target = c.describe(r.Context(), rec)
	}
	v := revokeView{Node: target, Descendants: liveDescendants(target), AtLeast: n >= f.Max() || len(unreadable) > 0,
		Unreadable: len(unreadable), CSRF: op.CSRF}
	c.render(w, http.StatusOK, "revoke", view{Title: "Capability", Nav: "capabilities", Op: &op, Page: v})
}

// revoke revokes through the admin API's path, so the effect and the
// audit event are the same as POST /admin/revoke.
func (c *Console) revoke(w http.ResponseWriter, r *http.Request, op operator) {
	err := c.deps.Revoker.RevokeCapability(r.Context(), op.Principal, clip(r.PostFormValue("id")))
	if err != nil {
		c.indexError(w, r, err)
		return
	}
	http.Redirect(w, r, "/console/capabilities?done=revoke", http.StatusSeeOther)
}

func (c *Console) indexError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, capindex.ErrNotFound):
		c.fail(w, http.StatusNotFound, "No live capability has that id.")
	case errors.Is(err, captoken.ErrInvalid):
		c.fail(w, http.StatusUnprocessableEntity, "The indexed token does not verify.")
	case errors.Is(err, revocation.ErrUnconfirmed):
		c.fail(w, http.StatusServiceUnavailable, "Revoked, but the request ended before every replica confirmed it: "+
			"it is refused everywhere within the staleness bound. Revoke again to confirm.")
	default:
		c.deps.Logger.ErrorContext(r.Context(), "console: capability store failed", "error", err)
		c.fail(w, http.StatusServiceUnavailable, "The capability stores are unavailable; nothing was revoked.")
	}
}

// clip bounds a value taken from a request.
func clip(s string) string {
	if len(s) > maxFilter {
		return s[:maxFilter]
	}
	return s
}
