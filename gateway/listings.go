package gateway

import (
	"context"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/metrics"
)

// countedListings is the capability index as the admin API and the
// console read it: the unreadable records their listings meet are counted
// in capgate_capindex_unreadable_records_total. Those are the index's
// only listings.
type countedListings struct {
	capindex.Index
	m *metrics.Metrics
}

// ListByPrincipal implements capindex.Index.
func (x countedListings) ListByPrincipal(ctx context.Context, p string) ([]capindex.Record, error) {
	recs, err := x.Index.ListByPrincipal(ctx, p)
	x.count(err)
	return recs, err
}

// List implements capindex.Index.
func (x countedListings) List(ctx context.Context, f capindex.Filter) ([]capindex.Record, error) {
	recs, err := x.Index.List(ctx, f)
	x.count(err)
	return recs, err
}

// count counts the records a listing named instead of returning; a
// listing that failed named nothing to anyone.
func (x countedListings) count(err error) {
	ids, _ := capindex.Partial(err)
	x.m.CapindexUnreadable(len(ids))
}
