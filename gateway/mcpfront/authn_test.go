package mcpfront_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/authn/oidctest"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
)

// TestUnauthenticated: a request without valid credentials gets the 401
// challenge naming the server's metadata, and the server sees nothing.
func TestUnauthenticated(t *testing.T) {
	w := newWorld(t, "")
	for _, auth := range []string{"", "Bearer not-a-key"} {
		req, _ := http.NewRequest(http.MethodPost, w.gateway.URL+"/mcp/files", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := `Bearer resource_metadata="https://gateway.example/.well-known/oauth-protected-resource/mcp/files"`
		if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(got, want) {
			t.Errorf("%q: %d %q, want 401 %q", auth, resp.StatusCode, got, want)
		}
	}
	if n := len(w.upstream.seen()); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
}

// TestResourceMetadata: the metadata names the resource and the issuers.
func TestResourceMetadata(t *testing.T) {
	w := newWorld(t, "")
	resp, err := http.Get(w.gateway.URL + "/.well-known/oauth-protected-resource/mcp/files")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if md.Resource != "https://gateway.example/mcp/files" || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != "https://idp.example" {
		t.Errorf("metadata %+v", md)
	}
	if resp, _ := http.Get(w.gateway.URL + "/.well-known/oauth-protected-resource/mcp/nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown server: %d", resp.StatusCode)
	}
}

// TestTokenAudienceIsTheResource: an OIDC token is accepted at a server
// only when its aud names the server's resource URI (RFC 8707); a token
// for the gateway's own audience or for another server gets the 401
// challenge, and the server sees nothing.
func TestTokenAudienceIsTheResource(t *testing.T) {
	idp := oidctest.New(t)
	w := newWorldWith(t, "", func(_ *config.MCPServer, d *mcpfront.Deps) {
		a, err := authn.New(context.Background(), []authn.IssuerConfig{{Issuer: idp.URL(), Audience: "capgate"}}, nil, authn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d.Authenticator = a
	})
	tests := []struct {
		name       string
		aud        any
		wantStatus int
	}{
		{"the server's resource", "https://gateway.example/mcp/files", http.StatusOK},
		{"the resource among others", []string{"capgate", "https://gateway.example/mcp/files"}, http.StatusOK},
		{"the gateway's audience", "capgate", http.StatusUnauthorized},
		{"another server", "https://gateway.example/mcp/notes", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims := idp.Claims("capgate", time.Now())
			claims["aud"], claims["email"], claims["email_verified"] = tt.aud, "dana@example.com", true
			w.wantPing(t, tt.wantStatus, "Bearer "+idp.Sign(claims))
		})
	}
}
