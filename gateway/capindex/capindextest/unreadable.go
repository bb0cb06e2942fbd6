package capindextest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/capgate/capgate/gateway/capindex"
)

// Unreadable is an index some of whose records, once Break names them,
// cannot be read, as a shared store's corrupt or tampered records read:
// Get fails closed with ErrUnavailable, and a listing that would return
// one returns the others with a *capindex.UnreadableError naming it. The
// tests of every reader of listings use it.
type Unreadable struct {
	capindex.Index

	mu     sync.Mutex
	broken map[string]bool
	fail   error
}

// Break makes the records of ids unreadable.
func (x *Unreadable) Break(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.broken == nil {
		x.broken = map[string]bool{}
	}
	for _, id := range ids {
		x.broken[id] = true
	}
}

// FailListings makes every listing return err, with the records it would
// have returned, as a listing whose error joins others would; nil undoes
// it.
func (x *Unreadable) FailListings(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fail = err
}

func (x *Unreadable) isBroken(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.broken[id]
}

// Get implements capindex.Index.
func (x *Unreadable) Get(ctx context.Context, id string) (capindex.Record, error) {
	if x.isBroken(id) {
		return capindex.Record{}, fmt.Errorf("%w: garbled record for %s", capindex.ErrUnavailable, id)
	}
	return x.Index.Get(ctx, id)
}

// ListByPrincipal implements capindex.Index.
func (x *Unreadable) ListByPrincipal(ctx context.Context, p string) ([]capindex.Record, error) {
	return x.split(x.Index.ListByPrincipal(ctx, p))
}

// List implements capindex.Index. A broken record is named only when the
// wrapped index lists it, so only when it matches the filter (Redis
// names one whatever the filter's agent and grant).
func (x *Unreadable) List(ctx context.Context, f capindex.Filter) ([]capindex.Record, error) {
	return x.split(x.Index.List(ctx, f))
}

// split takes the broken records out of a listing and names them.
func (x *Unreadable) split(recs []capindex.Record, err error) ([]capindex.Record, error) {
	if err != nil {
		return recs, err
	}
	var out []capindex.Record
	var bad []string
	for _, r := range recs {
		if x.isBroken(r.CapabilityID) {
			bad = append(bad, r.CapabilityID)
		} else {
			out = append(out, r)
		}
	}
	x.mu.Lock()
	fail := x.fail
	x.mu.Unlock()
	switch {
	case fail != nil:
		return out, fail
	case len(bad) > 0:
		slices.Sort(bad)
		return out, &capindex.UnreadableError{IDs: bad}
	}
	return out, nil
}
