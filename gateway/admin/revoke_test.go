package admin_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// revokeFailing is a revocation store whose Revoke stores (when store is
// set) and then fails with err.
type revokeFailing struct {
	*revocation.Memory
	store bool
	err   error
}

func (s revokeFailing) Revoke(ctx context.Context, id string, until time.Time) error {
	if s.store {
		if err := s.Memory.Revoke(ctx, id, until); err != nil {
			return err
		}
	}
	return s.err
}

// TestAdminRevokeSaysWhatHappened: POST /admin/revoke never says "nothing
// was revoked" for a revocation that was stored but not confirmed by every
// replica, and says it for one that was not stored.
func TestAdminRevokeSaysWhatHappened(t *testing.T) {
	tests := []struct {
		name        string
		store       bool
		err         error
		wantStatus  int
		wantMessage string
		wantRevoked bool
	}{
		{"stored", true, nil, http.StatusOK, `"revoked":true`, true},
		{"not stored", false, revocation.ErrUnavailable, http.StatusServiceUnavailable, "nothing was revoked", false},
		{"stored, unconfirmed", true, fmt.Errorf("%w: %w", revocation.ErrUnconfirmed, context.Canceled),
			http.StatusServiceUnavailable, "revoked, but", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			an, err := authn.New(context.Background(), nil, []authn.DevKey{
				{Hash: authn.HashKey("admin"), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
			}, authn.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mem := revocation.NewMemory(revocation.MemoryOptions{Now: time.Now})
			defer mem.Close()
			api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}, MaxTTL: time.Hour},
				admin.Deps{Authenticator: an, Revocations: revokeFailing{Memory: mem, store: tt.store, err: tt.err},
					Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}})
			srv := httptest.NewServer(api.Handler())
			defer srv.Close()
			status, body := send(t, srv, "admin", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_1"}`)
			if status != tt.wantStatus || !strings.Contains(body, tt.wantMessage) {
				t.Fatalf("%d %s, want %d containing %q", status, body, tt.wantStatus, tt.wantMessage)
			}
			res, err := mem.Check(context.Background(), revocation.Query{IDs: []string{"rev_1"}})
			if err != nil || res.Revoked != tt.wantRevoked {
				t.Errorf("revoked %v (%v), want %v", res.Revoked, err, tt.wantRevoked)
			}
		})
	}
}
