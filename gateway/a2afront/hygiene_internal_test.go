package a2afront

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/sep"
)

// TestOneWayOutHeaderHygiene sends a call down each path that leaves the
// front for an agent (a single call, a batch element, the resolution hook)
// with the caller's credentials and forged trusted headers, and checks
// that the agent received none of them, and the ones the gateway vouches
// for instead.
func TestOneWayOutHeaderHygiene(t *testing.T) {
	tests := []struct {
		name, body, method string
	}{
		{"single call", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t1"}}`, "tasks/get"},
		{"batch element", `[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t1"}},{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"t2"}}]`, "tasks/get"},
		{"resolution hook", `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"]}}`, sep.MethodResolve},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			if _, err := fx.front.deps.Tasks.Claim(t.Context(), "documents", "user:alice@example.com", []string{"t1", "t2"}); err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			fx.front.Mount(r)
			req := httptest.NewRequest(http.MethodPost, "/a2a/documents", bytes.NewBufferString(tt.body))
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			req.Header.Set("Cookie", "session=secret")
			req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
			req.Header.Set(proxy.HeaderCapabilityPrincipal, "user:mallory@example.com")
			req.Header.Set(proxy.HeaderCapabilityID, "cap_forged")
			req.Header.Set(proxy.HeaderCapabilityToken, "forged.token.value")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			got := fx.upstream.calls(tt.method)
			if len(got) == 0 {
				t.Fatalf("the agent received no %s call; answer %d %s", tt.method, w.Code, w.Body)
			}
			for _, c := range got {
				for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", proxy.HeaderCapabilityID, proxy.HeaderCapabilityToken} {
					if v := c.header.Get(h); v != "" {
						t.Errorf("%s reached the agent: %q", h, v)
					}
				}
				if p := c.header.Get(proxy.HeaderCapabilityPrincipal); p != "user:alice@example.com" {
					t.Errorf("principal header = %q, want the authenticated caller", p)
				}
				if strings.Contains(string(c.body), "forged") {
					t.Errorf("forged value in the forwarded body: %s", c.body)
				}
			}
		})
	}
}
