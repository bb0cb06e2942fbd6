package interop_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// Storage ids of the quickstart files server: no caller may see them.
const (
	q1File     = "files/finance/q1-2026.md"
	q2File     = "files/finance/q2-2026.md"
	salaryFile = "files/hr/salaries.md"
)

// mcpWorld is the quickstart world, its files MCP server fronted at
// /mcp/files, with the key set its gateway signs capabilities with.
type mcpWorld struct {
	*quickstart.World
	keys *captoken.KeySet
}

// startMCPWorld starts the quickstart world on a key file this test
// holds, so that it can mint capabilities for the files server.
func startMCPWorld(t *testing.T) *mcpWorld {
	t.Helper()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := ks.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	w, err := quickstart.Start(context.Background(), quickstart.Options{KeysFile: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &mcpWorld{World: w, keys: ks}
}

// filesCapability is a capability minted for the files server.
type filesCapability struct {
	token   string
	handles []string
}

// mint signs holder a capability on the files server for ops over the
// given storage ids, as issuance would (issuance at /mcp/files is not
// served yet).
func (w *mcpWorld) mint(t *testing.T, holder string, ops []string, ids ...string) filesCapability {
	t.Helper()
	now := time.Now()
	resources := map[string]string{}
	var handles []string
	for _, id := range ids {
		h := captoken.NewHandle()
		handles, resources[h] = append(handles, h), id
	}
	token, err := captoken.Mint(w.keys, captoken.Claims{
		Issuer: w.Config.Capabilities.Issuer, Principal: holder, Holder: holder, Audience: "files",
		CapabilityID: captoken.NewCapabilityID(), Grant: "files:read", Operations: ops, Handles: handles,
		Expiry: captoken.NewNumericDate(now.Add(time.Hour)), NotBefore: captoken.NewNumericDate(now.Add(-time.Minute)),
		IssuedAt: captoken.NewNumericDate(now.Add(-time.Minute)), RevocationID: captoken.NewRevocationID(),
	}, resources)
	if err != nil {
		t.Fatal(err)
	}
	return filesCapability{token: token, handles: handles}
}

// bearerTransport adds a dev key to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// connectGo opens a session of the official Go SDK client through the
// gateway, speaking version.
func (w *mcpWorld) connectGo(t *testing.T, key, version string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "capgate-interop", Version: "1.0.0"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: w.URL + "/mcp/files",
		HTTPClient: &http.Client{Transport: bearerTransport(key)}, MaxRetries: -1}
	cs, err := c.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect through the gateway (%s): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// presenting is the _meta that presents a capability token.
func presenting(token string) sdk.Meta {
	return sdk.Meta{"dev.capgate/capability": map[string]any{"capabilityToken": token}}
}

// mcpKit is the JavaScript kit, with the MCP SDK installed.
func mcpKit(t *testing.T) string {
	t.Helper()
	kit := jsKit(t)
	if _, err := os.Stat(filepath.Join(kit, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("@modelcontextprotocol/sdk is not installed: " + installHint)
		}
		t.Skip("@modelcontextprotocol/sdk is not installed: " + installHint)
	}
	return kit
}

// rpcError is the JSON-RPC error a Go SDK call returned, with its reason.
func rpcError(t *testing.T, err error) (int64, string) {
	t.Helper()
	var we *sdkrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("%v, want a JSON-RPC error", err)
	}
	return we.Code, dataReason(we.Data)
}
