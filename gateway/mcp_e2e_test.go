package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
)

// TestMCPFrontMounted: an MCP server in the config is fronted at
// /mcp/{name} by the gateway FromConfig builds: unauthenticated calls get
// the challenge naming its metadata, and a tools/call without a
// capability is refused with -32040 before the server sees it.
func TestMCPFrontMounted(t *testing.T) {
	var calls atomic.Int64
	s := sdk.NewServer(&sdk.Implementation{Name: "files", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "read_file"}, func(context.Context, *sdk.CallToolRequest, struct {
		Path string `json:"path"`
	}) (*sdk.CallToolResult, any, error) {
		calls.Add(1)
		return &sdk.CallToolResult{}, nil, nil
	})
	up := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true}))
	defer up.Close()
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(pol, []byte("version: 1\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(fmt.Appendf(nil, `
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
agents: [{name: documents, url: "http://127.0.0.1:9/"}]
mcp_servers:
  - name: files
    url: %s
    grants: [{id: "files:read", operations: [read]}]
    tools: {read_file: {operation: read, resources: [/path]}}
dev_keys: [{hash: %q, principal: "user:alice@example.com"}]
policy: {file: %s}
`, up.URL, authn.HashKey("alice-key-0123456789"), pol), "mcp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.FromConfig(context.Background(), cfg, gateway.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	srv := httptest.NewServer(gw.Handler())
	defer srv.Close()

	post := func(key, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp/files", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	resp.Body.Close()
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(got, `resource_metadata="http://gateway.test/.well-known/oauth-protected-resource/mcp/files"`) {
		t.Errorf("unauthenticated: %d %q", resp.StatusCode, got)
	}
	resp = post("alice-key-0123456789", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"x"}}}`)
	defer resp.Body.Close()
	var out struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error.Code != -32040 {
		t.Errorf("tools/call without a capability: %v %+v, want -32040", err, out)
	}
	if calls.Load() != 0 {
		t.Error("the server saw a refused call")
	}
}
