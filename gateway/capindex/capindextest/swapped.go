package capindextest

import (
	"context"
	"sync"

	"github.com/capgate/capgate/gateway/capindex"
)

// Swapped is an index that, once Swap is called, answers Get for one
// capability id with another capability's record, as a record written to
// a shared store by someone else reads: the tests of every reader that
// must not trust a record's id over its verified token use it.
type Swapped struct {
	capindex.Index

	mu       sync.Mutex
	from, to string
}

// Swap makes Get(from) answer with to's record, under from's id.
func (x *Swapped) Swap(from, to string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.from, x.to = from, to
}

// Get implements capindex.Index.
func (x *Swapped) Get(ctx context.Context, id string) (capindex.Record, error) {
	x.mu.Lock()
	from, to := x.from, x.to
	x.mu.Unlock()
	if from == "" || id != from {
		return x.Index.Get(ctx, id)
	}
	rec, err := x.Index.Get(ctx, to)
	rec.CapabilityID = id
	return rec, err
}
