package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAuthentication drives the real handler with OIDC tokens from a real
// issuer (discovery and JWKS over HTTP) and dev keys. Every rejection must
// be a 401 with WWW-Authenticate: Bearer, and the upstream must see nothing.
func TestAuthentication(t *testing.T) {
	h := newHarness(t, nil, nil)
	now := time.Now()
	tests := []struct {
		name   string
		bearer func() string
		want   int
	}{
		{"valid OIDC token", func() string { return h.token(nil) }, http.StatusOK},
		{"dev key", func() string { return "alice-dev-key" }, http.StatusOK},
		{"no credentials", func() string { return "" }, http.StatusUnauthorized},
		{"bad dev key", func() string { return "mallory-dev-key" }, http.StatusUnauthorized},
		{"expired", func() string {
			return h.token(func(c map[string]any) {
				c["iat"], c["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
			})
		}, http.StatusUnauthorized},
		{"wrong audience", func() string { return h.token(func(c map[string]any) { c["aud"] = "someone-else" }) }, http.StatusUnauthorized},
		{"HS256 keyed with the public key", func() string { return h.idp.SignHS256WithPublicKey(h.idp.Claims(testAudience, now)) }, http.StatusUnauthorized},
		{"alg none", func() string { return h.idp.Unsigned("none", h.idp.Claims(testAudience, now)) }, http.StatusUnauthorized},
		{"alg NONE", func() string { return h.idp.Unsigned("NONE", h.idp.Claims(testAudience, now)) }, http.StatusUnauthorized},
		{"embedded jwk", func() string { return h.idp.SignWithEmbeddedJWK(h.idp.Claims(testAudience, now)) }, http.StatusUnauthorized},
		{"unknown signing key", func() string { return h.idp.SignWithUnknownKey(h.idp.Claims(testAudience, now)) }, http.StatusUnauthorized},
		{"unknown issuer", func() string {
			return h.token(func(c map[string]any) { c["iss"] = "https://evil.example" })
		}, http.StatusUnauthorized},
		{"tampered payload", func() string {
			return h.idp.Tamper(h.token(nil), map[string]any{"email": "ceo@example.com"})
		}, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.docs.Recorder().Reset()
			resp, body := h.post("documents", tt.bearer(), sendBody)
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want == http.StatusOK {
				if h.calls() != 1 {
					t.Fatalf("upstream saw %d requests, want 1", h.calls())
				}
				return
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want Bearer challenge", got)
			}
			h.upstreamSawNothing()
		})
	}
}

// TestCallerCredentialsNeverForwarded checks that neither the caller's
// Authorization header nor smuggled capability headers reach the upstream.
func TestCallerCredentialsNeverForwarded(t *testing.T) {
	h := newHarness(t, nil, nil)
	resp, body := h.post("documents", "alice-dev-key", sendBody,
		"A2A-Capability-Principal", "user:ceo@example.com",
		"a2a-capability-operations", "delete",
		"Cookie", "session=secret")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	reqs := h.docs.Recorder().Requests()
	last := reqs[len(reqs)-1]
	if last.Method != http.MethodPost {
		t.Fatalf("last upstream request is %s %s", last.Method, last.Path)
	}
	for k := range last.Header {
		if lk := strings.ToLower(k); lk == "authorization" || lk == "cookie" {
			t.Errorf("header %s reached the upstream: %q", k, last.Header.Values(k))
		}
	}
	if got := last.Header.Values("A2A-Capability-Principal"); len(got) != 1 || got[0] != "user:alice@example.com" {
		t.Errorf("A2A-Capability-Principal = %q: the smuggled value must be replaced by the caller's", got)
	}
	if got := last.Header.Values("A2A-Capability-Operations"); len(got) != 0 {
		t.Errorf("smuggled A2A-Capability-Operations reached the upstream: %q", got)
	}
}

// TestOIDCKeyRotation checks that a token signed with a rotated-in key is
// accepted once the issuer publishes it.
func TestOIDCKeyRotation(t *testing.T) {
	h := newHarness(t, nil, nil)
	if resp, b := h.post("documents", h.token(nil), sendBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("before rotation: %d %s", resp.StatusCode, b)
	}
	h.idp.Rotate()
	if resp, b := h.post("documents", h.token(nil), sendBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("after rotation: %d %s", resp.StatusCode, b)
	}
}
