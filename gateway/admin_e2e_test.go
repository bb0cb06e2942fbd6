package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
)

func (h *harness) admin(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h.gw.AdminHandler())
	t.Cleanup(srv.Close)
	return srv
}

func adminCall(t *testing.T, srv *httptest.Server, method, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

// TestAdminAccess: the admin API authenticates like any caller and then
// admits only admin principals or groups.
func TestAdminAccess(t *testing.T) {
	h := newHarness(t, nil, nil)
	srv := h.admin(t)
	for _, tc := range []struct {
		key  string
		want int
	}{{"", 401}, {"mallory-key", 401}, {"alice-dev-key", 403}, {"admin-dev-key", 200}} {
		if code, _ := adminCall(t, srv, "GET", "/admin/policy", tc.key, ""); code != tc.want {
			t.Errorf("key %q: status %d, want %d", tc.key, code, tc.want)
		}
	}
}

// TestAdminRevoke revokes by capability id (cascading), by revocation id,
// and every capability a principal was issued before a time.
func TestAdminRevoke(t *testing.T) {
	clk := &clock{now: time.Now()}
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Now = clk.Now })
	srv := h.admin(t)
	byID, byRID, other := h.aliceQ1(), h.aliceQ1(), h.aliceQ1()
	child, _ := h.attenuate("alice-dev-key", map[string]any{"capabilityId": byID.ID, "constraints": map[string]any{}})
	for _, body := range []string{
		`{"capabilityId":"` + byID.ID + `"}`,
		`{"revocationId":"` + byRID.RevocationID + `"}`,
	} {
		if code, out := adminCall(t, srv, "POST", "/admin/revoke", "admin-dev-key", body); code != 200 || out["revoked"] != true {
			t.Fatalf("revoke %s: %d %v", body, code, out)
		}
	}
	for _, c := range []issued{byID, child, byRID} {
		wantCode(t, h.invokeFirst("alice-dev-key", c), -32043, "capability_revoked")
	}
	if r := h.invokeFirst("alice-dev-key", other); r.Error != nil {
		t.Fatalf("an unrelated capability died: %+v", r.Error)
	}
	code, out := adminCall(t, srv, "GET", "/admin/capabilities?principal=user:alice@example.com", "admin-dev-key", "")
	if code != 200 || !strings.Contains(mustJSON(out), `"revoked":"revoked"`) || !strings.Contains(mustJSON(out), `"revoked":"live"`) {
		t.Fatalf("list: %d %s", code, mustJSON(out))
	}
	clk.Advance(2 * time.Second)
	if code, out := adminCall(t, srv, "POST", "/admin/revoke", "admin-dev-key", `{"principal":"user:alice@example.com"}`); code != 200 {
		t.Fatalf("revoke principal: %d %v", code, out)
	}
	wantCode(t, h.invokeFirst("alice-dev-key", other), -32043, "capability_revoked")
	clk.Advance(2 * time.Second)
	if r := h.invokeFirst("alice-dev-key", h.aliceQ1()); r.Error != nil {
		t.Fatalf("a capability issued after the cutoff is refused: %+v", r.Error)
	}
	if h.invokeCount() != 2 {
		t.Errorf("the agent saw %d invocations, want only the 2 allowed", h.invokeCount())
	}
	for _, bad := range []string{`{}`, `{"capabilityId":"a","principal":"b"}`, `{"nope":1}`, `not json`} {
		if code, _ := adminCall(t, srv, "POST", "/admin/revoke", "admin-dev-key", bad); code != 400 {
			t.Errorf("body %s: status %d, want 400", bad, code)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAdminRevokeStoreDown: a revocation that could not be stored is a 503
// with Retry-After, never a reported success.
func TestAdminRevokeStoreDown(t *testing.T) {
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Revocations = failingStore{} })
	srv := h.admin(t)
	req, _ := http.NewRequest("POST", srv.URL+"/admin/revoke", strings.NewReader(`{"principal":"user:alice@example.com"}`))
	req.Header.Set("Authorization", "Bearer admin-dev-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
