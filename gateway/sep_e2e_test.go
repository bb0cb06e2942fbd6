package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/revocation"
)

// TestCapabilityRequest is the SEP issuance in the quickstart world.
func TestCapabilityRequest(t *testing.T) {
	h := newHarness(t, nil, nil)
	c := h.aliceQ1()
	if c.Grant != "documents:read" || c.Principal != "user:alice@example.com" || !strings.HasPrefix(c.ID, "cap_") || !strings.HasPrefix(c.RevocationID, "rv_") {
		t.Errorf("capability = %+v", c)
	}
	if c.handle("Q1 Financial Summary") == "" || c.handle("Q1 Sales Report") == "" || len(c.ResourceHandles) != 2 {
		t.Errorf("handles = %+v, want the two Q1 reports", c.ResourceHandles)
	}
	for _, rh := range c.ResourceHandles {
		if !strings.HasPrefix(rh.Handle, "rh_") || strings.Contains(rh.Handle, "/") {
			t.Errorf("handle %q is not opaque", rh.Handle)
		}
	}
	// The token's claims (decoded; its base64 text would contain short
	// strings by chance) never name a real resource id.
	claims, _, err := captoken.UnsafeClaimsWithoutVerification(c.Token)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(claims); strings.Contains(string(b), "reports/") {
		t.Errorf("the token's claims name a real resource id: %s", b)
	}
	if strings.Join(c.Operations, ",") != "retrieve,search,list" {
		t.Errorf("operations = %v", c.Operations)
	}
	exp, err := time.Parse(time.RFC3339, c.Expires)
	if err != nil || time.Until(exp) > time.Hour+time.Minute {
		t.Errorf("expires = %q: policy caps finance at 1h", c.Expires)
	}
}

// TestCapabilityRequestDenied checks that an empty intersection is a
// grant_denied error naming why, and that nothing reached the agent.
func TestCapabilityRequestDenied(t *testing.T) {
	h := newHarness(t, nil, nil)
	tests := []struct {
		name, key string
		params    map[string]any
		wantCode  int
		wantText  string
	}{
		{"bob asks for hr", "bob-dev-key", map[string]any{"grants": []string{"documents:read"}, "resourceQuery": map[string]any{"collection": "hr"}}, -32047, "contractors-never-hr"},
		{"alice asks to write", "alice-dev-key", map[string]any{"grants": []string{"documents:write"}}, -32047, ""},
		{"nobody gets admin", "carol-dev-key", map[string]any{"grants": []string{"documents:admin"}}, -32047, "nobody-gets-admin"},
		{"the summarizer holds only what is delegated", "summarizer-dev-key", map[string]any{"grants": []string{"documents:read"}}, -32047, ""},
		{"no resource matches", "alice-dev-key", map[string]any{"grants": []string{"documents:read"}, "resourceQuery": map[string]any{"collection": "reports", "filter": map[string]string{"quarter": "1999-Q1"}}}, -32047, "no resource"},
		{"expiry in the past", "alice-dev-key", map[string]any{"grants": []string{"documents:read"}, "expires": "2001-01-01T00:00:00Z"}, -32047, ""},
		{"no grants", "alice-dev-key", map[string]any{"grants": []string{}}, -32602, ""},
		{"purpose over the bound", "alice-dev-key", map[string]any{"grants": []string{"documents:read"}, "purpose": strings.Repeat("p", 2000)}, -32602, "purpose"},
		{"unknown member", "alice-dev-key", map[string]any{"grants": []string{"documents:read"}, "scope": "all"}, -32602, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := h.rpc(tt.key, "a2a/capabilities/request", tt.params)
			wantCode(t, r, tt.wantCode, "")
			if b, _ := json.Marshal(r.Error); tt.wantText != "" && !strings.Contains(string(b)+r.Error.Message, tt.wantText) {
				t.Errorf("error does not name %q: %s", tt.wantText, b)
			}
			// Only a query the policy allowed is resolved with the agent;
			// nothing else reaches it.
			resolved := 0
			if tt.wantText == "no resource" {
				resolved = 1
			}
			if n, r := h.calls(), h.docs.Recorder().CountRPC("a2a/resources/resolve"); n != resolved || r != resolved {
				t.Errorf("agent saw %d calls (%d resolutions), want %d resolution only", n, r, resolved)
			}
			h.docs.Recorder().Reset()
		})
	}
}

// TestRevocationStoreDownFailsClosed checks that a store error is
// revocation_unavailable, never "not revoked".
func TestRevocationStoreDownFailsClosed(t *testing.T) {
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.Revocations = failingStore{} })
	c := h.aliceQ1()
	_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("retrieve_document", c.ID, map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}))
	wantCode(t, r, -32049, "revocation_unavailable")
	if h.invokeCount() != 0 {
		t.Error("the agent saw an invocation while revocation state was unknown")
	}
}

type failingStore struct{}

func (failingStore) Revoke(context.Context, string, time.Time) error {
	return revocation.ErrUnavailable
}
func (failingStore) RevokePrincipal(context.Context, string, time.Time, time.Time) error {
	return revocation.ErrUnavailable
}
func (failingStore) Check(context.Context, revocation.Query) (revocation.Result, error) {
	return revocation.Result{}, errors.New("redis: OOM command not allowed")
}
func (failingStore) Close() error { return nil }
