package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestRefusedCallsAudited: every admin API call refused with 401 or 403
// is an admin.refused event naming the caller when known, the method,
// the path and the status; an allowed call is not; the chain of the
// trail still verifies with the new event kind.
func TestRefusedCallsAudited(t *testing.T) {
	an, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey("admin"), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
		{Hash: authn.HashKey("bob"), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var trail bytes.Buffer
	mem := revocation.NewMemory(revocation.MemoryOptions{Now: time.Now})
	defer mem.Close()
	api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}, MaxTTL: time.Hour},
		admin.Deps{Authenticator: an, Revocations: mem, Audit: slog.New(audit.NewHandler(&trail, audit.Options{Chain: "admin-test"})),
			Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}})
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	tests := []struct {
		name, key, method, path, body string
		wantStatus                    int
		wantCaller                    string
	}{
		{"no credentials", "", http.MethodGet, "/admin/capabilities", "", http.StatusUnauthorized, ""},
		{"unknown key", "nope", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_1"}`, http.StatusUnauthorized, ""},
		{"not an admin", "bob", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_1"}`, http.StatusForbidden, "user:bob@example.com"},
		{"admin", "admin", http.MethodPost, "/admin/revoke", `{"revocationId":"rev_2"}`, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := trail.Len()
			status, _ := send(t, srv, tt.key, tt.method, tt.path, tt.body)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d", status, tt.wantStatus)
			}
			var ev map[string]any
			line := strings.TrimSpace(trail.String()[before:])
			if tt.wantStatus == http.StatusOK {
				if strings.Contains(line, admin.EventAdminRefused) {
					t.Errorf("an allowed call was audited as refused: %s", line)
				}
				return
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("no single refusal event: %q", line)
			}
			caller, _ := ev["caller"].(string)
			if ev["event"] != admin.EventAdminRefused || ev["path"] != tt.path || ev["method"] != tt.method ||
				ev["status"] != float64(tt.wantStatus) || caller != tt.wantCaller {
				t.Errorf("event %v", ev)
			}
		})
	}
	if res, err := mem.Check(context.Background(), revocation.Query{IDs: []string{"rev_1"}}); err != nil || res.Revoked {
		t.Errorf("a refused call revoked: %v %v", res.Revoked, err)
	}
	rep, err := audit.Verify(bytes.NewReader(trail.Bytes()))
	if err != nil || rep.Events != 4 {
		t.Errorf("the trail verifies %d events: %v", rep.Events, err)
	}
}
