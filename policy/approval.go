package policy

import (
	"slices"
	"strings"
	"time"
)

// DefaultApprovalWait is how long a request needing approval waits for a
// decision when its rule's approval section sets no wait.
const DefaultApprovalWait = time.Hour

// MaxApprovalWait bounds an approval section's wait.
const MaxApprovalWait = 7 * 24 * time.Hour

// Approvers names who may approve a grant: any listed principal id, or any
// member of a listed group.
type Approvers struct {
	// IDs lists approver principal ids.
	IDs []string `json:"ids,omitempty"`
	// Groups lists approver groups.
	Groups []string `json:"groups,omitempty"`
}

// Admits reports whether p is one of the approvers.
func (a Approvers) Admits(p Principal) bool {
	return slices.Contains(a.IDs, p.ID) || anyIn(a.Groups, p.Groups)
}

// String renders the approvers for humans, e.g. `group security, user:x`.
func (a Approvers) String() string {
	var parts []string
	for _, g := range a.Groups {
		parts = append(parts, "group "+g)
	}
	parts = append(parts, a.IDs...)
	if len(parts) == 0 {
		return "nobody"
	}
	return strings.Join(parts, ", ")
}

// Approval says that a grant the policy allows is issued only once a human
// approves it.
type Approval struct {
	// Rule is the id of the allow rule that asks for approval.
	Rule string `json:"rule"`
	// Approvers may approve or deny.
	Approvers Approvers `json:"approvers"`
	// Wait is how long the request may wait for a decision.
	Wait time.Duration `json:"wait"`
}

// NeedsApproval reports whether any grant of an allowing decision waits for
// human approval. Such a decision must not be issued as it stands: the
// caller holds it until an approver decides.
func (d Decision) NeedsApproval() bool {
	return slices.ContainsFunc(d.Grants, func(g GrantDecision) bool { return g.Approval != nil })
}

// approversOf renders the approvers of every grant that needs approval.
func approversOf(d Decision) string {
	var parts []string
	for _, g := range d.Grants {
		if g.Approval != nil && !slices.Contains(parts, g.Approval.Approvers.String()) {
			parts = append(parts, g.Approval.Approvers.String())
		}
	}
	return strings.Join(parts, " and ")
}

// Approvers returns everyone any approval section of the policy names: the
// union of their ids and of their groups, each listed once, in file order.
// The console lets these in to decide pending requests; whether one may
// decide a given request is still up to that request's own approvers.
func (p *Policy) Approvers() Approvers {
	var out Approvers
	for _, r := range p.rules {
		if r.approval == nil {
			continue
		}
		out.IDs = append(out.IDs, r.approval.approvers.IDs...)
		out.Groups = append(out.Groups, r.approval.approvers.Groups...)
	}
	out.IDs, out.Groups = dedupe(out.IDs), dedupe(out.Groups)
	return out
}
