package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
)

// approvalsAPI serves the admin API over a memory approval desk holding
// one pending request of carol's, decidable by group security.
func approvalsAPI(t *testing.T) (*httptest.Server, approval.Request) {
	srv, req, _ := approvalsDesk(t)
	return srv, req
}

// approvalsDesk is approvalsAPI with its desk.
func approvalsDesk(t *testing.T) (*httptest.Server, approval.Request, *approval.Desk) {
	t.Helper()
	return approvalsOn(t, approval.NewMemory(time.Now))
}

// approvalsOn is approvalsDesk on the backend mem.
func approvalsOn(t *testing.T, mem *approval.Memory) (*httptest.Server, approval.Request, *approval.Desk) {
	t.Helper()
	keys := []authn.DevKey{
		{Hash: authn.HashKey("carol"), Principal: "user:carol@example.com", Groups: []string{"hr", "security"}},
		{Hash: authn.HashKey("dave"), Principal: "user:dave@example.com", Groups: []string{"security"}},
		{Hash: authn.HashKey("admin"), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
		{Hash: authn.HashKey("bob"), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
	}
	an, err := authn.New(context.Background(), nil, keys, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	desk := approval.NewDesk(mem, approval.Options{})
	req, err := desk.Create(context.Background(), approval.Request{
		Principal: "user:carol@example.com", Agent: "documents", Purpose: "fix the handbook", Wait: time.Hour,
		Grants: []approval.Grant{{Grant: "documents:write", Operations: []string{"update"}, TTL: time.Minute,
			Resources: []policy.Resource{{ID: "hr/handbook-real-id", DisplayName: "Employee handbook"}},
			Approvers: &policy.Approvers{Groups: []string{"security"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}}, admin.Deps{
		Authenticator: an, Approvals: desk, Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now},
	})
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	return srv, req, desk
}

func send(t *testing.T, srv *httptest.Server, key, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestApprovalRoutes(t *testing.T) {
	srv, req := approvalsAPI(t)
	path := "/admin/approvals/" + req.ID
	tests := []struct {
		name, key, method, path, body string
		want                          int
		contains                      string
	}{
		{"anonymous", "", http.MethodGet, "/admin/approvals", "", http.StatusUnauthorized, ""},
		{"outsider lists nothing", "bob", http.MethodGet, "/admin/approvals", "", http.StatusOK, `{"approvals":[],"forged":[],"more":false}`},
		{"outsider cannot read", "bob", http.MethodGet, path, "", http.StatusNotFound, ""},
		{"admin lists all", "admin", http.MethodGet, "/admin/approvals?status=pending", "", http.StatusOK, "Employee handbook"},
		{"approver lists", "dave", http.MethodGet, "/admin/approvals", "", http.StatusOK, req.ID},
		{"admin is not an approver", "admin", http.MethodPost, path + "/approve", `{"reason":"ok"}`, http.StatusForbidden, "not an approver"},
		{"outsider cannot approve", "bob", http.MethodPost, path + "/approve", `{"reason":"ok"}`, http.StatusForbidden, ""},
		{"self approval", "carol", http.MethodPost, path + "/approve", `{"reason":"mine"}`, http.StatusForbidden, "own requests"},
		{"no reason", "dave", http.MethodPost, path + "/approve", `{}`, http.StatusBadRequest, "reason"},
		{"unknown field", "dave", http.MethodPost, path + "/approve", `{"reason":"x","ttl":"9h"}`, http.StatusBadRequest, ""},
		{"unknown id", "dave", http.MethodPost, "/admin/approvals/apr_nope/approve", `{"reason":"x"}`, http.StatusNotFound, ""},
		{"another action than shown", "dave", http.MethodPost, path + "/approve", `{"reason":"x","actionHash":"sha256:00"}`, http.StatusConflict, "another action than the one the approver saw"},
		{"outsider with a hash learns nothing", "bob", http.MethodPost, path + "/approve", `{"reason":"x","actionHash":"sha256:00"}`, http.StatusForbidden, ""},
		{"approver approves what was shown", "dave", http.MethodPost, path + "/approve", `{"reason":"ticket SEC-1","actionHash":"` + req.ActionHash + `"}`, http.StatusOK, `"status":"approved"`},
		{"decided once", "dave", http.MethodPost, path + "/deny", `{"reason":"changed my mind"}`, http.StatusConflict, "no longer pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := send(t, srv, tt.key, tt.method, tt.path, tt.body)
			if status != tt.want || !strings.Contains(body, tt.contains) {
				t.Fatalf("%s %s: %d %s, want %d containing %q", tt.method, tt.path, status, body, tt.want, tt.contains)
			}
			if strings.Contains(body, "handbook-real-id") {
				t.Fatalf("answer leaks a real resource id: %s", body)
			}
		})
	}
	_, body := send(t, srv, "dave", http.MethodGet, path, "")
	var got approval.Shown
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.DecidedBy != "user:dave@example.com" || got.Reason != "ticket SEC-1" {
		t.Fatalf("decided request %s", body)
	}
}

// TestAdminRoutesStillAdminOnly checks that opening the approval routes to
// approvers left the other routes to admins.
func TestAdminRoutesStillAdminOnly(t *testing.T) {
	srv, _ := approvalsAPI(t)
	if status, _ := send(t, srv, "dave", http.MethodGet, "/admin/policy", ""); status != http.StatusForbidden {
		t.Fatalf("an approver reached /admin/policy: %d", status)
	}
}

// TestApprovalListingFiltersBeforeLimit: newer requests an approver may
// not see never push out the one it may; the answer says when more
// requests match than it holds.
func TestApprovalListingFiltersBeforeLimit(t *testing.T) {
	srv, req, desk := approvalsDesk(t)
	for i := range 5 {
		time.Sleep(time.Millisecond) // newer than carol's
		if _, err := desk.Create(context.Background(), approval.Request{
			Principal: "user:mallory@example.com", Agent: "documents", Purpose: fmt.Sprint("flood ", i), Wait: time.Hour,
			Grants: []approval.Grant{{Grant: "documents:read", Operations: []string{"read"}, TTL: time.Minute,
				Approvers: &policy.Approvers{Groups: []string{"finance"}}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, key, query string
		wantIDs          int
		wantFirst        string
		wantMore         bool
	}{
		{"approver sees carol's past the flood", "dave", "?status=pending&limit=1", 1, req.ID, false},
		{"admin is told there is more", "admin", "?status=pending&limit=2", 2, "", true},
		{"admin sees all", "admin", "?status=pending", 6, "", false},
		{"a limit past the maximum is capped", "admin", "?limit=100000", 6, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := send(t, srv, tc.key, http.MethodGet, "/admin/approvals"+tc.query, "")
			var got struct {
				Approvals []approval.Shown
				More      bool
			}
			if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil {
				t.Fatalf("%d %s", status, body)
			}
			if len(got.Approvals) != tc.wantIDs || got.More != tc.wantMore || (tc.wantFirst != "" && got.Approvals[0].ID != tc.wantFirst) {
				t.Fatalf("got %d requests (more %v): %s", len(got.Approvals), got.More, body)
			}
		})
	}
}

// TestApprovalActionChanged: a request whose stored content no longer
// matches its action hash (widened in the store) is refused with 409 and
// stays pending; nothing is decided.
func TestApprovalActionChanged(t *testing.T) {
	mem := approval.NewMemory(time.Now)
	srv, req, desk := approvalsOn(t, mem)
	if _, err := mem.Update(context.Background(), req.ID, func(r *approval.Request) (bool, error) {
		r.Grants[0].Operations = append(r.Grants[0].Operations, "delete")
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	status, body := send(t, srv, "dave", http.MethodPost, "/admin/approvals/"+req.ID+"/approve", `{"reason":"ok"}`)
	if status != http.StatusConflict || !strings.Contains(body, "no longer holds the action its hash covers") {
		t.Fatalf("approve: %d %s", status, body)
	}
	if got, err := desk.Get(context.Background(), req.ID); err != nil || got.Status != approval.StatusPending {
		t.Fatalf("after the refusal: %s %v", got.Status, err)
	}
}
