package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/deploy/examples/quickstart"
)

// mcpWorld is the quickstart world, its files MCP server fronted at
// /mcp/files.
type mcpWorld struct {
	*quickstart.World
}

// startMCPWorld starts the quickstart world.
func startMCPWorld(t *testing.T) *mcpWorld {
	t.Helper()
	w, err := quickstart.Start(context.Background(), quickstart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &mcpWorld{World: w}
}

// filesCapability is a capability issued for the files server.
type filesCapability struct {
	id, token string
	handles   []string
}

// request asks /mcp/files, as the holder of key, for files:read on the
// finance files of kind, as any caller does: the gateway answers it.
func (w *mcpWorld) request(t *testing.T, key, kind string) filesCapability {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "a2a/capabilities/request",
		"params": map[string]any{"grants": []string{"files:read"},
			"resourceQuery": map[string]any{"collection": "finance", "filter": map[string]any{"kind": kind}}}})
	req, err := http.NewRequest(http.MethodPost, w.URL+"/mcp/files", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Transport: bearerTransport(key)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			Capabilities []struct {
				ID              string `json:"id"`
				Token           string `json:"token"`
				ResourceHandles []struct {
					Handle      string `json:"handle"`
					DisplayName string `json:"displayName"`
				} `json:"resourceHandles"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(raw, &out) != nil || len(out.Result.Capabilities) != 1 {
		t.Fatalf("a2a/capabilities/request at /mcp/files: %s", raw)
	}
	c := out.Result.Capabilities[0]
	fc := filesCapability{id: c.ID, token: c.Token}
	for _, h := range c.ResourceHandles {
		fc.handles = append(fc.handles, h.Handle)
	}
	return fc
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
