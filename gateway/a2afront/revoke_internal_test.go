package a2afront

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/revocation"
)

// failingRevoke is a revocation store whose Revoke stores the revocation
// (when store is set) and then fails with err.
type failingRevoke struct {
	revocation.Store
	store bool
	err   error
}

func (s failingRevoke) Revoke(ctx context.Context, id string, until time.Time) error {
	if s.store {
		if err := s.Store.Revoke(ctx, id, until); err != nil {
			return err
		}
	}
	return s.err
}

// TestRevokeFailureSaysWhatHappened: a revocation that was not stored is
// answered "NOT revoked"; one that was stored but not confirmed by every
// replica is never answered "NOT revoked" (it is revoked), and the
// capability is refused afterwards.
func TestRevokeFailureSaysWhatHappened(t *testing.T) {
	tests := []struct {
		name        string
		store       failingRevoke
		wantMessage string
		wantRevoked bool
	}{
		{"not stored", failingRevoke{err: revocation.ErrUnavailable}, "was NOT revoked", false},
		{"stored, unconfirmed", failingRevoke{store: true, err: fmt.Errorf("%w: %w", revocation.ErrUnconfirmed, context.Canceled)},
			"the capability is revoked", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			capb := fx.issue(t)
			tt.store.Store = fx.revocations
			fx.front.deps.Revocations = tt.store
			out := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
				`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/revoke","params":{"capabilityId":"`+capb.ID+`"}}`))
			if out.resp == nil || out.resp.Error == nil || out.resp.Error.Code != jsonrpc.CodeRevocationUnavailable ||
				!strings.Contains(out.resp.Error.Message, tt.wantMessage) {
				t.Fatalf("answer %+v, want code %d saying %q", out.resp, jsonrpc.CodeRevocationUnavailable, tt.wantMessage)
			}
			if detail, _ := out.resp.Error.Data.(map[string]any)["detail"]; (detail == reasonRevokedUnconfirmed) != tt.wantRevoked {
				t.Errorf("data.detail %v: a client cannot tell revoked from not revoked", detail)
			}
			fx.front.deps.Revocations = fx.revocations
			inv := fx.front.decide(context.Background(), fx.call(t, aliceKey, "documents",
				`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":"`+
					capb.ID+`","arguments":{"resourceHandle":"`+capb.ResourceHandles[0].Handle+`"}}}`))
			revoked := inv.resp != nil && inv.resp.Error != nil && inv.resp.Error.Code == jsonrpc.CodeCapabilityRevoked
			if revoked != tt.wantRevoked {
				t.Errorf("after the failed revoke, invocation %+v: revoked %v, want %v", inv.resp, revoked, tt.wantRevoked)
			}
		})
	}
}
