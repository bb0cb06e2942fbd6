package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/capindex/capindextest"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestAdminCapabilitiesNamesUnreadable: GET /admin/capabilities answers
// the readable records with the ids of the unreadable ones, and logs them
// at warn; an index that fails without naming records is a 503, and so is
// one whose error names records but joins ErrUnavailable or another
// error, though it returned records.
func TestAdminCapabilitiesNamesUnreadable(t *testing.T) {
	down := fmt.Errorf("%w: down", capindex.ErrUnavailable)
	named := &capindex.UnreadableError{IDs: []string{"cap_9"}}
	tests := []struct {
		name           string
		broken         []string
		fail           error
		wantStatus     int
		wantIDs        []string
		wantUnreadable []string
		wantMissing    []string
		wantWarn       bool
	}{
		{name: "all readable", wantStatus: http.StatusOK, wantIDs: []string{"cap_1", "cap_2", "cap_3"}, wantUnreadable: []string{}},
		{name: "two unreadable", broken: []string{"cap_3", "cap_1"}, wantStatus: http.StatusOK,
			wantIDs: []string{"cap_2"}, wantUnreadable: []string{"cap_1", "cap_3"}, wantWarn: true},
		{name: "every record unreadable", broken: []string{"cap_1", "cap_2", "cap_3"}, wantStatus: http.StatusOK,
			wantIDs: []string{}, wantUnreadable: []string{"cap_1", "cap_2", "cap_3"}, wantWarn: true},
		{name: "index unavailable", fail: fmt.Errorf("%w: down", capindex.ErrUnavailable), wantStatus: http.StatusServiceUnavailable},
		{name: "unreadable without ids", fail: capindex.ErrUnreadable, wantStatus: http.StatusServiceUnavailable},
		{name: "unavailable joined with unreadable", fail: errors.Join(named, down), wantStatus: http.StatusServiceUnavailable},
		{name: "unavailable wrapping unreadable", fail: fmt.Errorf("%w: %w", capindex.ErrUnavailable, named),
			wantStatus: http.StatusServiceUnavailable},
		{name: "unreadable joined with another error", fail: errors.Join(named, errors.New("boom")),
			wantStatus: http.StatusServiceUnavailable},
		{name: "wrapped unreadable", fail: fmt.Errorf("listing: %w", named), wantStatus: http.StatusOK,
			wantIDs: []string{"cap_1", "cap_2", "cap_3"}, wantUnreadable: []string{"cap_9"}, wantWarn: true},
		{name: "one of two gone", fail: &capindex.UnreadableError{IDs: []string{"cap_8", "cap_9"}, Missing: []string{"cap_9"}},
			wantStatus: http.StatusOK, wantIDs: []string{"cap_1", "cap_2", "cap_3"}, wantUnreadable: []string{"cap_8", "cap_9"},
			wantMissing: []string{"cap_9"}, wantWarn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &capindextest.Unreadable{Index: seededIndex(t)}
			idx.Break(tt.broken...)
			idx.FailListings(tt.fail)
			var logs bytes.Buffer
			srv := capabilitiesAPI(t, idx, slog.New(slog.NewJSONHandler(&logs, nil)))
			status, body := send(t, srv, "admin", http.MethodGet, "/admin/capabilities?principal=user:a", "")
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tt.wantStatus, body)
			}
			if warned := strings.Contains(logs.String(), `"level":"WARN"`) && strings.Contains(logs.String(), "cap_"); warned != tt.wantWarn {
				t.Errorf("warned %v, want %v: %s", warned, tt.wantWarn, logs.String())
			}
			if status != http.StatusOK {
				return
			}
			var out struct {
				Capabilities []struct{ ID string }
				Unreadable   []string
				Missing      []string
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil || out.Unreadable == nil || out.Missing == nil {
				t.Fatalf("body %s: %v (unreadable and missing must be present)", body, err)
			}
			if want := append([]string{}, tt.wantMissing...); !slices.Equal(out.Missing, want) {
				t.Errorf("missing %v, want %v", out.Missing, want)
			}
			got := []string{}
			for _, c := range out.Capabilities {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tt.wantIDs) || !slices.Equal(out.Unreadable, tt.wantUnreadable) {
				t.Errorf("capabilities %v unreadable %v, want %v and %v", got, out.Unreadable, tt.wantIDs, tt.wantUnreadable)
			}
		})
	}
}

// seededIndex holds three live capabilities of user:a.
func seededIndex(t *testing.T) capindex.Index {
	t.Helper()
	ix := capindex.NewMemory(time.Now)
	now := time.Now()
	for i, id := range []string{"cap_1", "cap_2", "cap_3"} {
		if err := ix.Put(context.Background(), capindex.Record{CapabilityID: id, Token: capindextest.Token(t, id),
			Principal: "user:a", Holder: "user:a", Agent: "documents", Grant: "documents:read",
			IssuedAt: now.Add(time.Duration(i) * time.Second), Expires: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// capabilitiesAPI serves the admin API on index, logging to logger.
func capabilitiesAPI(t *testing.T, index capindex.Index, logger *slog.Logger) *httptest.Server {
	t.Helper()
	an, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey("admin"), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	v, err := captoken.NewVerifier(ks, captoken.VerifierConfig{Issuer: "https://gw.test", Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}})
	if err != nil {
		t.Fatal(err)
	}
	mem := revocation.NewMemory(revocation.MemoryOptions{Now: time.Now})
	t.Cleanup(func() { mem.Close() })
	api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}, MaxTTL: time.Hour},
		admin.Deps{Authenticator: an, Index: index, Verifier: v, Revocations: mem, Runtime: platform.Runtime{Logger: logger, Now: time.Now}})
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	return srv
}
