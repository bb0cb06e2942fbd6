package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// DefaultMaxPending is how many requests one principal may have waiting
// at once when the config says nothing.
const DefaultMaxPending = 20

// MaxPendingLimit is the largest max_pending_per_principal accepted.
const MaxPendingLimit = 1000

// ErrTooManyPending means the principal already has as many requests
// waiting as the config allows; see *PendingLimitError.
var ErrTooManyPending = errors.New("approval: too many pending requests")

// PendingLimitError is Create's refusal of a principal that already has
// Limit requests waiting. It wraps ErrTooManyPending.
type PendingLimitError struct {
	// Limit is the configured bound (max_pending_per_principal).
	Limit int
}

// Error names the limit.
func (e *PendingLimitError) Error() string {
	return fmt.Sprintf("approval: too many pending requests: at most %d per principal (approvals.max_pending_per_principal)", e.Limit)
}

// Unwrap returns ErrTooManyPending.
func (e *PendingLimitError) Unwrap() error { return ErrTooManyPending }

// maxPending is the bound on a principal's pending requests.
func (d *Desk) maxPending() int {
	if d.opts.MaxPending <= 0 {
		return DefaultMaxPending
	}
	return d.opts.MaxPending
}

// waiting returns the pending request of r's principal that asks exactly
// what r asks, if any (found true); otherwise it refuses r when the
// principal already has maxPending requests waiting. Records that fail
// their MAC are not counted: they are never decided.
func (d *Desk) waiting(ctx context.Context, r *Request) (same Request, found bool, err error) {
	limit := d.maxPending()
	mine, err := d.List(ctx, Filter{Status: StatusPending, Principal: r.Principal, Limit: 2 * limit})
	if _, partial := Partial(err); err != nil && !partial {
		return Request{}, false, err
	}
	want := r.ask()
	for _, m := range mine {
		if bytes.Equal(m.ask(), want) {
			return m, true, nil
		}
	}
	if len(mine) >= limit {
		return Request{}, false, &PendingLimitError{Limit: limit}
	}
	return Request{}, false, nil
}

// ask is the canonical encoding of what r asks for: two requests with the
// same ask would issue the same capabilities.
func (r *Request) ask() []byte {
	b, _ := json.Marshal(struct {
		Agent, Purpose, PolicyRevision string
		Query                          any
		Grants                         []Grant
	}{r.Agent, r.Purpose, r.PolicyRevision, r.Query, r.Grants})
	return b
}
