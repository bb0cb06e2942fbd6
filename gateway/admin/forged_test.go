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

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
)

// failingList is a Store whose List adds fail, when set, to what the desk
// answers.
type failingList struct {
	*approval.Desk
	fail error
}

func (f failingList) List(ctx context.Context, filter approval.Filter) ([]approval.Request, error) {
	rs, err := f.Desk.List(ctx, filter)
	if f.fail != nil {
		return rs, f.fail
	}
	return rs, err
}

// forgedAPI serves the admin API over a sealed memory desk holding two
// pending requests of carol's; the second's status is flipped without the
// key when tamper is set. It returns both ids.
func forgedAPI(t *testing.T, tamper bool, fail error, logger *slog.Logger) (*httptest.Server, [2]string) {
	t.Helper()
	ctx := context.Background()
	an, err := authn.New(ctx, nil, []authn.DevKey{
		{Hash: authn.HashKey("dave"), Principal: "user:dave@example.com", Groups: []string{"security"}},
		{Hash: authn.HashKey("admin"), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw := approval.NewMemory(time.Now)
	sealed, err := approval.Sealed(raw, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	desk := approval.NewDesk(sealed, approval.Options{})
	var ids [2]string
	for i := range ids {
		r, err := desk.Create(ctx, approval.Request{
			Principal: "user:carol@example.com", Agent: "documents", Purpose: fmt.Sprint("task ", i), Wait: time.Hour,
			Grants: []approval.Grant{{Grant: "documents:write", Operations: []string{"update"}, TTL: time.Minute,
				Approvers: &policy.Approvers{Groups: []string{"security"}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r.ID
	}
	if tamper {
		if _, err := raw.Update(ctx, ids[1], func(r *approval.Request) (bool, error) {
			r.Status = approval.StatusApproved
			return true, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	api := admin.New(admin.Config{Access: config.AdminAccess{Groups: []string{"capgate-admins"}}}, admin.Deps{
		Authenticator: an, Approvals: failingList{desk, fail}, Runtime: platform.Runtime{Logger: logger, Now: time.Now},
	})
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	return srv, ids
}

// TestListApprovalsNamesForged: GET /admin/approvals answers the requests
// that verify and names to admins, under "forged", those that fail their
// MAC, logging them at warn; an approver gets them listed nowhere but the
// log. A store error that is or joins anything else is a 503.
func TestListApprovalsNamesForged(t *testing.T) {
	down := fmt.Errorf("%w: down", approval.ErrUnavailable)
	named := &approval.ForgedError{IDs: []string{"apr_x"}}
	tests := []struct {
		name       string
		key        string
		tamper     bool
		fail       error
		wantStatus int
		// want index ids; wantForged holds ids, "1" standing for ids[1].
		want       []int
		wantForged []string
		wantWarn   bool
	}{
		{name: "none forged", key: "admin", wantStatus: http.StatusOK, want: []int{0, 1}, wantForged: []string{}},
		{name: "one forged, to an admin", key: "admin", tamper: true, wantStatus: http.StatusOK,
			want: []int{0}, wantForged: []string{"1"}, wantWarn: true},
		{name: "one forged, to an approver", key: "dave", tamper: true, wantStatus: http.StatusOK,
			want: []int{0}, wantForged: []string{}, wantWarn: true},
		{name: "wrapped forged", key: "admin", fail: fmt.Errorf("listing: %w", named), wantStatus: http.StatusOK,
			want: []int{0, 1}, wantForged: []string{"apr_x"}, wantWarn: true},
		{name: "store unavailable", key: "admin", fail: down, wantStatus: http.StatusServiceUnavailable},
		{name: "bare sentinel", key: "admin", fail: approval.ErrForged, wantStatus: http.StatusServiceUnavailable},
		{name: "forged joined with unavailable", key: "admin", fail: errors.Join(named, down), wantStatus: http.StatusServiceUnavailable},
		{name: "forged joined with another error", key: "admin", fail: errors.Join(named, errors.New("boom")),
			wantStatus: http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			srv, ids := forgedAPI(t, tt.tamper, tt.fail, slog.New(slog.NewJSONHandler(&logs, nil)))
			status, body := send(t, srv, tt.key, http.MethodGet, "/admin/approvals", "")
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tt.wantStatus, body)
			}
			if warned := strings.Contains(logs.String(), `"level":"WARN"`) && strings.Contains(logs.String(), "MAC"); warned != tt.wantWarn {
				t.Errorf("warned %v, want %v: %s", warned, tt.wantWarn, logs.String())
			}
			if status != http.StatusOK {
				return
			}
			var out struct {
				Approvals []struct{ ID string }
				Forged    []string
			}
			if err := json.Unmarshal([]byte(body), &out); err != nil || out.Forged == nil {
				t.Fatalf("body %s: %v (forged must be present)", body, err)
			}
			got, want, wantForged := []string{}, []string{}, []string{}
			for _, a := range out.Approvals {
				got = append(got, a.ID)
			}
			for _, i := range tt.want {
				want = append(want, ids[i])
			}
			slices.Sort(got)
			slices.Sort(want)
			for _, f := range tt.wantForged {
				if f == "1" {
					f = ids[1]
				}
				wantForged = append(wantForged, f)
			}
			if !slices.Equal(got, want) || !slices.Equal(out.Forged, wantForged) {
				t.Errorf("approvals %v forged %v, want %v and %v", got, out.Forged, want, wantForged)
			}
		})
	}
}
