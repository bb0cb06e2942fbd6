package console

import (
	"context"
	"time"

	"github.com/capgate/capgate/gateway/approval"
)

// maxHistoryShown bounds the decided requests the approvals page shows.
const maxHistoryShown = 50

// historyView is one request no longer pending: how it ended, who
// decided it, when and why.
type historyView struct {
	ID, Principal, Agent, Purpose string
	// Status is approved, denied, expired or redeemed.
	Status     string
	Grants     []grantView
	DecidedBy  string
	DecidedAt  time.Time
	Reason     string
	RedeemedAt time.Time
	// Ended is when it was redeemed, or expired; zero while an approval
	// waits to be redeemed.
	Ended      time.Time
	ActionHash string
}

// history lists the newest maxHistoryShown requests op may see that are
// no longer pending, filtered before the limit, and whether older ones
// exist. The store keeps them for approval.Retention after their
// deadline. Records that fail their MAC are named in the warning above
// the pending ones, never here.
func (c *Console) history(ctx context.Context, op operator) ([]historyView, bool, error) {
	list, err := c.deps.Approvals.List(ctx, approval.Filter{Limit: maxHistoryShown + 1,
		Keep: func(r *approval.Request) bool { return r.Status != approval.StatusPending && visible(r, op) }})
	if _, partial := approval.Partial(err); err != nil && !partial {
		return nil, false, err
	}
	more := len(list) > maxHistoryShown
	out := make([]historyView, 0, min(len(list), maxHistoryShown))
	for _, r := range list[:min(len(list), maxHistoryShown)] {
		pub := r.Public()
		h := historyView{ID: pub.ID, Principal: pub.Principal, Agent: pub.Agent, Purpose: pub.Purpose,
			Status: string(pub.Status), Grants: viewGrants(&pub), DecidedBy: pub.DecidedBy, DecidedAt: pub.DecidedAt,
			Reason: pub.Reason, RedeemedAt: pub.RedeemedAt, ActionHash: pub.ActionHash}
		switch pub.Status {
		case approval.StatusRedeemed:
			h.Ended = pub.RedeemedAt
		case approval.StatusExpired:
			h.Ended = pub.Deadline
		}
		out = append(out, h)
	}
	return out, more, nil
}
