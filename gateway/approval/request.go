package approval

import (
	"errors"
	"slices"
	"time"

	"github.com/capgate/capgate/policy"
)

// IDPrefix starts every approval request id.
const IDPrefix = "apr_"

// Errors of the Store. Callers compare with errors.Is.
var (
	// ErrNotFound means no request has this id (for Redeem: none of the
	// caller's).
	ErrNotFound = errors.New("approval: no such request")
	// ErrUnavailable wraps a failure of the underlying store.
	ErrUnavailable = errors.New("approval: store unavailable")
	// ErrNotPending means the request was already decided.
	ErrNotPending = errors.New("approval: request is no longer pending")
	// ErrPending means the request waits for a decision.
	ErrPending = errors.New("approval: request is waiting for approval")
	// ErrDenied means an approver denied the request.
	ErrDenied = errors.New("approval: request was denied")
	// ErrExpired means the request passed its deadline undecided or
	// unredeemed.
	ErrExpired = errors.New("approval: request expired")
	// ErrRedeemed means the approval was already used.
	ErrRedeemed = errors.New("approval: approval already redeemed")
	// ErrSelfApproval means the approver is the requesting principal.
	ErrSelfApproval = errors.New("approval: approvers cannot decide their own requests")
	// ErrNotApprover means the policy does not name this principal as an
	// approver of every grant of the request.
	ErrNotApprover = errors.New("approval: not an approver of this request")
	// ErrInvalid means a request to Create is incomplete.
	ErrInvalid = errors.New("approval: invalid request")
)

// Status is where a request stands.
type Status string

// Request statuses.
const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusDenied   Status = "denied"
	StatusExpired  Status = "expired"
	StatusRedeemed Status = "redeemed"
)

// Grant is one capability that would be issued: a grant as the policy
// decided it (policy.GrantDecision), held with the resources it would
// cover until a human decides. The grant it issues is named by Grant, its
// definition being the agent's policy.Grant.
type Grant struct {
	Grant      string   `json:"grant"`
	Rule       string   `json:"rule"`
	Operations []string `json:"operations"`
	// Resources are the resources it would cover; their ID is the agent's
	// real id, never shown to humans (see Public).
	Resources []policy.Resource `json:"resources"`
	// TTL is the capability's life, counted from its issue.
	TTL        time.Duration `json:"ttl"`
	MaxDepth   int           `json:"maxDepth"`
	Attenuable bool          `json:"attenuable"`
	// Approvers may decide this grant; nil when the grant needs no
	// approval of its own but rides with one that does.
	Approvers *policy.Approvers `json:"approvers,omitempty"`
}

// Request is one capability request waiting for, or past, a human decision.
type Request struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Principal is the requesting principal; only it may redeem.
	Principal string `json:"principal"`
	Agent     string `json:"agent"`
	Purpose   string `json:"purpose,omitempty"`
	// Query is the caller's resource query, kept to re-check at redemption.
	Query          *policy.ResourceQuery `json:"query,omitempty"`
	PolicyRevision string                `json:"policyRevision"`
	Grants         []Grant               `json:"grants"`
	// ActionHash is the hash of exactly what the request issues (see
	// Action), taken when it is created; deciding and redeeming refuse a
	// request that no longer matches it.
	ActionHash string `json:"actionHash,omitempty"`
	// Wait is how long the request may wait for a decision (and, once
	// approved, for its redemption).
	Wait      time.Duration `json:"wait"`
	CreatedAt time.Time     `json:"createdAt"`
	// Deadline is when it expires unless decided (or, once approved,
	// redeemed).
	Deadline   time.Time `json:"deadline"`
	DecidedBy  string    `json:"decidedBy,omitempty"`
	DecidedAt  time.Time `json:"decidedAt,omitzero"`
	Reason     string    `json:"reason,omitempty"`
	RedeemedAt time.Time `json:"redeemedAt,omitzero"`
	// MAC authenticates the stored record (see Sealed); empty elsewhere.
	MAC string `json:"mac,omitempty"`
}

// Approvers returns the distinct approver sets of the request's grants.
func (r *Request) Approvers() []policy.Approvers {
	var out []policy.Approvers
	for _, g := range r.Grants {
		if g.Approvers != nil {
			out = append(out, *g.Approvers)
		}
	}
	return out
}

// MayDecide reports whether p may approve or deny r: every grant's
// approvers admit p, and p is not the requester.
func (r *Request) MayDecide(p policy.Principal) error {
	if p.ID == r.Principal {
		return ErrSelfApproval
	}
	sets := r.Approvers()
	if len(sets) == 0 || slices.ContainsFunc(sets, func(a policy.Approvers) bool { return !a.Admits(p) }) {
		return ErrNotApprover
	}
	return nil
}

// effective returns r as of now: a pending or approved request past its
// deadline is expired.
func (r Request) effective(now time.Time) Request {
	if (r.Status == StatusPending || r.Status == StatusApproved) && !now.Before(r.Deadline) {
		r.Status = StatusExpired
	}
	return r
}

// Public returns r without real resource ids: what an API or page may show.
func (r Request) Public() Request {
	r.MAC = ""
	r.Grants = slices.Clone(r.Grants)
	for i := range r.Grants {
		res := make([]policy.Resource, len(r.Grants[i].Resources))
		for j, x := range r.Grants[i].Resources {
			res[j] = policy.Resource{DisplayName: x.DisplayName, Collection: x.Collection}
		}
		r.Grants[i].Resources = res
	}
	return r
}

// Filter selects requests for List.
type Filter struct {
	// Status keeps only requests in this status; empty keeps all.
	Status Status
	// Principal keeps only this principal's requests; empty keeps all.
	Principal string
	// Keep, when set, keeps only the requests it accepts (say, those a
	// viewer may see). Like every field, it applies before Limit, so the
	// answer is the newest Limit requests of what it keeps; it sees only
	// records that verify, as of now.
	Keep func(*Request) bool
	// Limit bounds the answer; 0 means 100.
	Limit int
}

func (f Filter) keeps(r *Request) bool {
	return (f.Status == "" || r.Status == f.Status) && (f.Principal == "" || r.Principal == f.Principal) &&
		(f.Keep == nil || f.Keep(r))
}

func (f Filter) limit() int {
	if f.Limit <= 0 {
		return 100
	}
	return f.Limit
}
