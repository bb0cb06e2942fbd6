package approval

import (
	"context"
	"fmt"
	"time"

	"github.com/capgate/capgate/revocation"
)

// EventReplayed is audited when a request reads as approved although its
// approval was already used: its record was rolled back.
const EventReplayed = "approval.replayed"

// ledgerSkew covers the clocks of replicas that disagree a little about
// when a request's last possible redemption falls.
const ledgerSkew = 5 * time.Minute

// Ledger remembers, one way, which approvals were used. A
// revocation.Store is one: an approval id is "revoked" once used, the
// entry only ever grows, and a Synced replica keeps it in memory and
// writes it back to Redis after a loss, exactly as it does revocations.
// It is what a rollback of the request's record cannot undo.
type Ledger interface {
	// Revoke records id as used until `until`.
	Revoke(ctx context.Context, id string, until time.Time) error
	// Check reports whether an id of q was recorded. Any error means
	// "used" to the Desk: it fails closed.
	Check(ctx context.Context, q revocation.Query) (revocation.Result, error)
}

var _ Ledger = revocation.Store(nil)

// spendUntil is how long the mark of r's use must last: no sealed copy of
// r can be redeemed after it. A pending copy expires at CreatedAt+Wait,
// and approving it then would give it at most Wait more.
func spendUntil(r *Request) time.Time {
	return r.CreatedAt.Add(2*r.Wait + ledgerSkew)
}

// spend marks r as used in the ledger before the record says so, so that
// no failure can leave a used approval unmarked; a request already marked
// is ErrRedeemed and audited as a replay. Without a ledger it does
// nothing.
func (d *Desk) spend(ctx context.Context, r *Request) error {
	if d.opts.Ledger == nil {
		return nil
	}
	res, err := d.opts.Ledger.Check(ctx, revocation.Query{IDs: []string{r.ID}})
	if err != nil {
		return fmt.Errorf("%w: approval ledger: %w", ErrUnavailable, err)
	}
	if res.Revoked {
		d.audit(ctx, EventReplayed, r, "")
		return fmt.Errorf("%w: its record was rolled back", ErrRedeemed)
	}
	if err := d.opts.Ledger.Revoke(ctx, r.ID, spendUntil(r)); err != nil {
		return fmt.Errorf("%w: approval ledger: %w", ErrUnavailable, err)
	}
	return nil
}
