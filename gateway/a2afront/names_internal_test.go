package a2afront

import (
	"context"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
)

// TestDisplayNamesOnlyFromTheCapabilitysOwnRecord: names are matched to
// handles by position, so a record the index holds under c's id whose
// token is another capability's names nothing, and c's own record names
// its handles.
func TestDisplayNamesOnlyFromTheCapabilitysOwnRecord(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	a, b := fx.issue(t), fx.issue(t)
	claims, err := fx.front.deps.Verifier.Verify(ctx, a.Token, captoken.Expected{})
	if err != nil {
		t.Fatal(err)
	}
	swapped := &capindextest.Swapped{Index: fx.index}
	swapped.Swap(a.ID, b.ID)
	fx.front.deps.Index = swapped
	if got := fx.front.displayNames(ctx, claims, nil); len(got) != 0 {
		t.Errorf("another capability's record named %v", got)
	}
	fx.front.deps.Index = fx.index
	got := fx.front.displayNames(ctx, claims, nil)
	if len(got) != len(a.ResourceHandles) {
		t.Fatalf("own record named %v, want the %d handles", got, len(a.ResourceHandles))
	}
	for _, h := range a.ResourceHandles {
		if got[h.Handle] != h.DisplayName {
			t.Errorf("handle %s named %q, want %q", h.Handle, got[h.Handle], h.DisplayName)
		}
	}
}
