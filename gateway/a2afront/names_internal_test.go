package a2afront

import (
	"context"
	"testing"

	"github.com/capgate/capgate/captoken"
)

// TestDisplayNamesOnlyFromTheCapabilitysOwnRecord: names are matched to
// handles by position, so a record whose token is another capability's
// names nothing, and the capability's own record names its handles.
func TestDisplayNamesOnlyFromTheCapabilitysOwnRecord(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	a, b := fx.issue(t), fx.issue(t)
	claims, err := fx.front.deps.Verifier.Verify(ctx, a.Token, captoken.Expected{})
	if err != nil {
		t.Fatal(err)
	}
	recA, errA := fx.index.Get(ctx, a.ID)
	recB, errB := fx.index.Get(ctx, b.ID)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if got := fx.front.displayNames(ctx, claims, &recB); len(got) != 0 {
		t.Errorf("another capability's record named %v", got)
	}
	got := fx.front.displayNames(ctx, claims, &recA)
	if len(got) != len(a.ResourceHandles) {
		t.Fatalf("own record named %v, want the %d handles", got, len(a.ResourceHandles))
	}
	for _, h := range a.ResourceHandles {
		if got[h.Handle] != h.DisplayName {
			t.Errorf("handle %s named %q, want %q", h.Handle, got[h.Handle], h.DisplayName)
		}
	}
}
