package gateway_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/capindex"
)

// forgingIndex answers Get for one capability id with another
// capability's record, as a record written to a shared store by someone
// else would read.
type forgingIndex struct {
	capindex.Index
	from, to atomic.Pointer[string]
}

func (x *forgingIndex) Get(ctx context.Context, id string) (capindex.Record, error) {
	if f, t := x.from.Load(), x.to.Load(); f != nil && t != nil && id == *f {
		rec, err := x.Index.Get(ctx, *t)
		rec.CapabilityID = id
		return rec, err
	}
	return x.Index.Get(ctx, id)
}

// TestAdminRevokeRefusesAnotherCapabilitysRecord: when the index's record
// for X holds Y's token, POST /admin/revoke of X is refused, and neither X
// nor Y is revoked (revoking what the token names would kill Y and leave
// X live).
func TestAdminRevokeRefusesAnotherCapabilitysRecord(t *testing.T) {
	idx := &forgingIndex{Index: capindex.NewMemory(time.Now)}
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Index = idx })
	srv := h.admin(t)
	x, y := h.aliceQ1(), h.aliceQ1()
	idx.from.Store(&x.ID)
	idx.to.Store(&y.ID)
	if code, out := adminCall(t, srv, "POST", "/admin/revoke", "admin-dev-key", `{"capabilityId":"`+x.ID+`"}`); code != 422 {
		t.Fatalf("revoke of a record holding another capability's token: %d %v, want 422", code, out)
	}
	for _, c := range []issued{x, y} {
		if r := h.invokeWithToken("alice-dev-key", c); r.Error != nil {
			t.Errorf("%s was revoked: %+v", c.ID, r.Error)
		}
	}
}
