package mcpfront_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestUpstreamAuth: with upstream_auth, every request the server gets
// carries the gateway's own bearer token, never the caller's key, on
// every path (initialize, list, call).
func TestUpstreamAuth(t *testing.T) {
	w := newWorldWith(t, "", func(s *config.MCPServer, d *mcpfront.Deps) {
		s.UpstreamAuth = &config.MCPUpstreamAuth{BearerEnv: "FILES_TOKEN"}
		d.Getenv = func(k string) string {
			if k == "FILES_TOKEN" {
				return "gateway-token-for-files"
			}
			return ""
		}
	})
	c := w.mint(t, alice, []string{"read"}, "corpus/q1-report.md")
	cs := w.connect(t, aliceKey, "")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), readCall(c.handles[0], c.id)); err != nil {
		t.Fatal(err)
	}
	seen := w.upstream.seen()
	if len(seen) < 3 {
		t.Fatalf("the server saw %d requests", len(seen))
	}
	for _, h := range seen {
		if got := h.Get("Authorization"); got != "Bearer gateway-token-for-files" {
			t.Errorf("the server got Authorization %q, want the gateway's token", got)
		}
	}
}

// TestUpstreamAuthUnreadable: a server whose credential cannot be read
// is a config the front refuses to serve.
func TestUpstreamAuthUnreadable(t *testing.T) {
	tests := []struct {
		name string
		auth config.MCPUpstreamAuth
	}{
		{"empty variable", config.MCPUpstreamAuth{BearerEnv: "NOT_SET"}},
		{"missing file", config.MCPUpstreamAuth{BearerFile: "/nonexistent/token"}},
		{"client secret", config.MCPUpstreamAuth{UpstreamAuth: config.UpstreamAuth{TokenURL: "https://idp.example/token",
			ClientID: "capgate", ClientSecretEnv: "NOT_SET"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := filesServer("http://127.0.0.1:9/")
			s.UpstreamAuth = &tt.auth
			_, err := mcpfront.New(mcpfront.Config{Servers: []config.MCPServer{s}}, validDeps(t))
			if !errors.Is(err, mcpfront.ErrInvalidConfig) {
				t.Errorf("New: %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// readCall is a read_file call of handle under the capability id.
func readCall(handle, id string) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": handle}, Meta: withCapability(id)}
}

// validDeps are the required deps of a front, over fresh stores; files
// are read from disk and no environment variable is set.
func validDeps(t *testing.T) mcpfront.Deps {
	t.Helper()
	keys, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	v, err := captoken.NewVerifier(keys, captoken.VerifierConfig{Issuer: "capgate", Algorithms: keys.Algorithms()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := authn.New(context.Background(), nil, []authn.DevKey{{Hash: authn.HashKey(aliceKey), Principal: alice}}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	index, revoked := capindex.NewMemory(time.Now), revocation.NewMemory(revocation.MemoryOptions{})
	t.Cleanup(func() { _ = revoked.Close(); _ = index.Close() })
	return mcpfront.Deps{Authenticator: a, Verifier: v, Index: index, Revocations: revoked,
		Runtime: platform.Runtime{ReadFile: os.ReadFile}}
}
