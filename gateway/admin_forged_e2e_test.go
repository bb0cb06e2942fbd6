package gateway_test

import (
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
)

// TestAdminRevokeRefusesAnotherCapabilitysRecord: when the index's record
// for X holds Y's token, POST /admin/revoke of X is refused, and neither X
// nor Y is revoked (revoking what the token names would kill Y and leave
// X live).
func TestAdminRevokeRefusesAnotherCapabilitysRecord(t *testing.T) {
	idx := &capindextest.Swapped{Index: capindex.NewMemory(time.Now)}
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Index = idx })
	srv := h.admin(t)
	x, y := h.aliceQ1(), h.aliceQ1()
	idx.Swap(x.ID, y.ID)
	if code, out := adminCall(t, srv, "POST", "/admin/revoke", "admin-dev-key", `{"capabilityId":"`+x.ID+`"}`); code != 422 {
		t.Fatalf("revoke of a record holding another capability's token: %d %v, want 422", code, out)
	}
	for _, c := range []issued{x, y} {
		if r := h.invokeWithToken("alice-dev-key", c); r.Error != nil {
			t.Errorf("%s was revoked: %+v", c.ID, r.Error)
		}
	}
}
