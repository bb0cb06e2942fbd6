package mcpfront_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/sep"
)

// rpcAnswer is a JSON-RPC answer as the caller reads it.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Reason string `json:"reason"`
			Detail string `json:"detail"`
		} `json:"data"`
	} `json:"error"`
}

// rpc posts one call to /mcp/files as the holder of key and decodes the
// gateway's JSON answer.
func (w *world) rpc(t *testing.T, key, method string, params any) rpcAnswer {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, w.gateway.URL+"/mcp/files", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("%s: the answer is not JSON-RPC: %v", method, err)
	}
	return a
}

// codeOf is the JSON-RPC code of an error the SDK client returned, or 0.
func codeOf(err error) int64 {
	var we *sdkrpc.Error
	if !errors.As(err, &we) {
		return 0
	}
	return we.Code
}

// issued decodes an answer holding capabilities.
func issued(t *testing.T, a rpcAnswer) []sep.Capability {
	t.Helper()
	if a.Error != nil {
		t.Fatalf("refused %d %s (%s)", a.Error.Code, a.Error.Data.Reason, a.Error.Message)
	}
	var res sep.CapabilitiesResult
	if err := json.Unmarshal(a.Result, &res); err != nil || len(res.Capabilities) == 0 {
		t.Fatalf("no capability in %s: %v", a.Result, err)
	}
	return res.Capabilities
}

// TestIssuanceAtTheServer: a2a/capabilities/request sent to /mcp/files
// is answered by the gateway (grant ∩ request ∩ policy, handles for the
// catalog's resources), never forwarded; the capability it issues calls
// the server's tools, attenuates to a narrower one, and revoking it ends
// its child's calls.
func TestIssuanceAtTheServer(t *testing.T) {
	w := newWorld(t, "")
	before := len(w.upstream.seen())
	caps := issued(t, w.rpc(t, aliceKey, "a2a/capabilities/request", map[string]any{
		"grants": []string{"files:read"}, "resourceQuery": map[string]any{"collection": "reports"}, "purpose": "Quarter close",
	}))
	parent := caps[0]
	if parent.Grant != "files:read" || len(parent.ResourceHandles) != 2 || strings.Join(parent.Operations, ",") != "read" {
		t.Fatalf("issued %+v, want files:read over the two reports", parent)
	}
	if b, _ := json.Marshal(parent); strings.Contains(string(b), "corpus/") {
		t.Errorf("the capability names a real id: %s", b)
	}
	child := issued(t, w.rpc(t, aliceKey, "a2a/capabilities/attenuate", map[string]any{
		"capabilityId": parent.ID, "constraints": map[string]any{"resourceHandles": []string{parent.ResourceHandles[0].Handle}},
	}))[0]
	if child.ParentID != parent.ID || len(child.ResourceHandles) != 1 || child.ResourceHandles[0].DisplayName == "" {
		t.Fatalf("attenuated %+v, want one named handle under %s", child, parent.ID)
	}
	if got := len(w.upstream.seen()); got != before {
		t.Fatalf("the server saw %d requests of the capability flows", got-before)
	}

	cs := w.connect(t, aliceKey, "")
	read := func(c sep.Capability, h string) error {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file",
			Arguments: map[string]any{"path": h}, Meta: withCapability(c.ID)})
		return err
	}
	if err := read(child, child.ResourceHandles[0].Handle); err != nil {
		t.Fatalf("the child reads its file: %v", err)
	}
	if err := read(child, parent.ResourceHandles[1].Handle); codeOf(err) != -32045 {
		t.Errorf("the child read a file outside it: %v", err)
	}
	if a := w.rpc(t, aliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": parent.ID}); a.Error != nil {
		t.Fatalf("revoke: %+v", a.Error)
	}
	calls := w.upstream.calls.Load()
	if err := read(child, child.ResourceHandles[0].Handle); codeOf(err) != -32043 {
		t.Errorf("the child of a revoked capability read: %v", err)
	}
	if w.upstream.calls.Load() != calls {
		t.Error("the server saw the refused call")
	}
	for _, event := range []string{"capability.issue", "capability.attenuate", "capability.revoke"} {
		if !strings.Contains(w.audit.String(), `"msg":"`+event+`"`) {
			t.Errorf("no %s event in the audit trail", event)
		}
	}
}

// TestIssuanceRefusals: what the policy does not allow is refused with
// the stable code, and the server sees nothing.
func TestIssuanceRefusals(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		method     string
		params     any
		wantCode   int
		wantReason string
	}{
		{"not in the policy", bobKey, "a2a/capabilities/request", map[string]any{"grants": []string{"files:read"}}, -32047, "grant_denied"},
		{"a grant the policy never gives", aliceKey, "a2a/capabilities/request", map[string]any{"grants": []string{"files:write"}}, -32047, "grant_denied"},
		{"outside the rule's resources", aliceKey, "a2a/capabilities/request",
			map[string]any{"grants": []string{"files:read"}, "resourceQuery": map[string]any{"collection": "board"}}, -32047, "grant_denied"},
		{"no grant", aliceKey, "a2a/capabilities/request", map[string]any{"grants": []string{}}, -32602, "invalid_params"},
		{"unknown member", aliceKey, "a2a/capabilities/request", map[string]any{"grants": []string{"files:read"}, "scope": "all"}, -32602, "invalid_params"},
		{"unknown approval", aliceKey, "a2a/capabilities/approval/status", map[string]any{"approvalId": "apr_nope"}, -32602, "invalid_params"},
		{"attenuate an unknown capability", aliceKey, "a2a/capabilities/attenuate", map[string]any{"capabilityId": "cap_nope"}, -32041, "capability_invalid"},
		{"revoke an unknown capability", aliceKey, "a2a/capabilities/revoke", map[string]any{"capabilityId": "cap_nope"}, -32041, "capability_invalid"},
	}
	w := newWorld(t, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(w.upstream.seen())
			a := w.rpc(t, tt.key, tt.method, tt.params)
			if a.Error == nil || a.Error.Code != tt.wantCode || a.Error.Data.Reason != tt.wantReason {
				t.Errorf("answer %s %+v, want %d %s", a.Result, a.Error, tt.wantCode, tt.wantReason)
			}
			if got := len(w.upstream.seen()); got != before {
				t.Errorf("the server saw %d requests", got-before)
			}
		})
	}
}
