package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation/redistest"
)

// mcpFiles is a files MCP server on the official Go SDK: read_file reads
// a real path, and every call that reaches the tool is counted.
type mcpFiles struct {
	calls atomic.Int64
	mu    sync.Mutex
	paths []string
}

func (m *mcpFiles) serve(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "files", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "read_file"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		Path string `json:"path"`
	}) (*sdk.CallToolResult, any, error) {
		m.calls.Add(1)
		m.mu.Lock()
		m.paths = append(m.paths, in.Path)
		m.mu.Unlock()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Path + ": Q1 revenue grew 12%."}}}, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// summarizerAgent is an A2A agent that answers every send, keeping the
// capabilities the gateway delegated to it.
type summarizerAgent struct {
	mu        sync.Mutex
	delegated []issued
}

func (a *summarizerAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Metadata map[string]struct {
				Capabilities []issued `json:"capabilities"`
			} `json:"metadata"`
		} `json:"params"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	a.mu.Lock()
	a.delegated = append(a.delegated, req.Params.Metadata[agentcard.ExtensionURI].Capabilities...)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) +
		`,"result":{"kind":"message","role":"agent","messageId":"r1","parts":[{"kind":"text","text":"on it"}]}}`))
}

const delegationPolicy = `version: 1
rules:
  - id: finance-read-reports
    principals: {groups: [finance]}
    agents: [files]
    grants: [files:read]
    operations: [read]
    resources: {collection: reports}
    max_ttl: 1h
    max_delegation_depth: 2
`

// mcpReplicas starts two replicas of one gateway, sharing a Redis and a
// key set, fronting the files server and the summarizer agent; each
// writes its audit trail to the file it returns.
func mcpReplicas(t *testing.T, filesURL, summarizerURL string) (a, b *harness, trails [2]string) {
	t.Helper()
	srv := redistest.Start(t)
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(pol, []byte(delegationPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	replica := func(trail string) *harness {
		return newHarnessWith(t, nil, func(c *config.Config) {
			c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
				Timeout: config.Duration(time.Second), AllowNoPersistence: true}
			c.Policy.File, c.Audit.File = pol, trail
			c.Agents = append(c.Agents, config.Agent{Name: "summarizer", URL: summarizerURL + "/", Principal: "agent:summarizer"})
			// The harness fronts a files server the quickstart policy names;
			// this one replaces it.
			c.MCPServers = append(slices.DeleteFunc(c.MCPServers, func(s config.MCPServer) bool { return s.Name == "files" }),
				config.MCPServer{Name: "files", URL: filesURL, Principal: "agent:files",
					Grants: []policy.Grant{{ID: "files:read", Operations: []string{"read"}, Attenuable: true}},
					Tools:  map[string]config.MCPTool{"read_file": {Operation: "read", Resources: []string{"/path"}}},
					Catalog: []policy.Resource{{ID: "corpus/q1-report.md", DisplayName: "Q1 report", Collection: "reports"},
						{ID: "corpus/q2-report.md", DisplayName: "Q2 report", Collection: "reports"}}})
		}, func(o *gateway.BuildOptions) { o.Keys = ks })
	}
	trails = [2]string{filepath.Join(dir, "a.audit"), filepath.Join(dir, "b.audit")}
	return replica(trails[0]), replica(trails[1]), trails
}

// mcpRPC posts one JSON-RPC call to /mcp/files and decodes its answer, a
// JSON body or the one message of an event stream.
func (h *harness) mcpRPC(bearer, method string, params any) rpcResponse {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp/files", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") { // an event stream's one message
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return decodeRPC(h.t, []byte(data))
		}
	}
	return decodeRPC(h.t, b)
}

// bearerKey sends a dev key with every request of an MCP client.
type bearerKey string

func (k bearerKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(k))
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession opens an official Go SDK client session on /mcp/files.
func (h *harness) mcpSession(key string) *sdk.ClientSession {
	h.t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "summarizer", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: h.srv.URL + "/mcp/files",
		HTTPClient: &http.Client{Transport: bearerKey(key)}, MaxRetries: -1}, nil)
	if err != nil {
		h.t.Fatalf("connect: %v", err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestMCPCapabilityDelegatedOverA2A: alice is issued a capability for
// the files server at /mcp/files on one replica, delegates it narrowed
// to one file to the summarizer over A2A, and the summarizer reads that
// file through /mcp/files on the other replica with the child it was
// given. A file outside the child is refused; once alice revokes the
// parent, the child's next call is refused -32043 and the server sees
// nothing of it. Both audit trails show the chain.
func TestMCPCapabilityDelegatedOverA2A(t *testing.T) {
	w := newDelegationWorld(t)
	files, summarizer, a, b, trails, parent := w.files, w.summarizer, w.a, w.b, w.trails, w.parent
	q1, q2 := parent.handle("Q1 report"), parent.handle("Q2 report")
	if q1 == "" || q2 == "" {
		t.Fatalf("issued %+v, want both reports", parent)
	}
	child := delegateToSummarizer(t, a, summarizer, parent, q1)
	if child.Holder != "agent:summarizer" || child.Depth != 1 || len(child.ResourceHandles) != 1 || child.Token == "" {
		t.Fatalf("child %+v, want one handle held by the summarizer", child)
	}

	cs := b.mcpSession("summarizer-dev-key")
	read := func(h string) (*sdk.CallToolResult, error) {
		return cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": h},
			Meta: sdk.Meta{"dev.capgate/capability": map[string]any{"capabilityId": child.ID}}})
	}
	res, err := read(q1)
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != q1+": Q1 revenue grew 12%." {
		t.Fatalf("the summarizer's read: %v %+v", err, res)
	}
	if files.paths[0] != "corpus/q1-report.md" {
		t.Errorf("the server was asked for %q", files.paths[0])
	}
	wantRefused(t, files, func() error { _, err := read(q2); return err }, -32045)
	if r := a.mcpRPC("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": parent.ID}); r.Error != nil {
		t.Fatalf("revoke: %+v", r.Error)
	}
	wantRefused(t, files, func() error { _, err := read(q1); return err }, -32043)
	wantChain(t, trails, parent.ID, child.ID)
}

// issuedFrom is the one capability an answer issues.
func issuedFrom(t *testing.T, r rpcResponse) issued {
	t.Helper()
	var res struct {
		Capabilities []issued `json:"capabilities"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res.Capabilities) != 1 {
		t.Fatalf("issuance: %+v %s", r.Error, r.Result)
	}
	return res.Capabilities[0]
}

// wantRefused fails unless call is refused with code and the server saw
// nothing of it.
func wantRefused(t *testing.T, files *mcpFiles, call func() error, code int64) {
	t.Helper()
	before := files.calls.Load()
	var we *sdkrpc.Error
	if err := call(); !errors.As(err, &we) || we.Code != code {
		t.Errorf("call: %v, want %d", err, code)
	}
	if files.calls.Load() != before {
		t.Errorf("the server saw a refused call")
	}
}

// wantChain fails unless the audit trails show alice delegating parent
// to the summarizer as child, and the summarizer's tool calls under
// child naming parent, allowed, then refused as revoked.
func wantChain(t *testing.T, trails [2]string, parent, child string) {
	t.Helper()
	var events []map[string]any
	for _, p := range trails {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e map[string]any
			if json.Unmarshal([]byte(line), &e) == nil {
				events = append(events, e)
			}
		}
	}
	want := []map[string]any{
		{"event": "capability.delegate", "caller": "user:alice@example.com", "to_agent": "summarizer",
			"parent_capability_id": parent, "capability_id": child, "holder": "agent:summarizer", "decision": "delegated"},
		{"event": "mcp.tools.call", "principal": "agent:summarizer", "tool": "read_file", "capability_id": child,
			"parent_id": parent, "on_behalf_of": "user:alice@example.com", "outcome": "allowed"},
		{"event": "mcp.tools.call", "principal": "agent:summarizer", "requested_capability_id": child, "outcome": "capability_revoked"},
	}
	for _, w := range want {
		if !anyEvent(events, w) {
			t.Errorf("no audit event with %v", w)
		}
	}
}

func anyEvent(events []map[string]any, want map[string]any) bool {
	for _, e := range events {
		ok := true
		for k, v := range want {
			ok = ok && e[k] == v
		}
		if ok {
			return true
		}
	}
	return false
}

// TestFreezeAgentStopsWhatWasDelegatedToIt: freezing the summarizer
// agent also freezes the principal it calls out as (agent:summarizer), so
// the child alice delegated to it is revoked and its next tool call at
// another target (/mcp/files) is refused, the server seeing nothing.
// Unfreezing the agent lifts that principal's freeze too, but what was
// revoked stays revoked.
func TestFreezeAgentStopsWhatWasDelegatedToIt(t *testing.T) {
	w := newDelegationWorld(t)
	files, summarizer, a, b, parent := w.files, w.summarizer, w.a, w.b, w.parent
	q1 := parent.handle("Q1 report")
	child := delegateToSummarizer(t, a, summarizer, parent, q1)
	cs := b.mcpSession("summarizer-dev-key")
	read := func() error {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": q1},
			Meta: sdk.Meta{"dev.capgate/capability": map[string]any{"capabilityId": child.ID}}})
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("the summarizer's read before the freeze: %v", err)
	}
	adm := a.admin(t)
	code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key", `{"kind":"agent","name":"summarizer","reason":"incident 9"}`)
	as, _ := out["asPrincipal"].(map[string]any)
	entry, _ := as["entry"].(map[string]any)
	if code != 200 || entry["name"] != "agent:summarizer" || out["revoked"].(float64) < 1 {
		t.Fatalf("freeze: %d %v", code, out)
	}
	wantRefused(t, files, read, -32043)
	if code, _ := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key", `{"kind":"agent","name":"summarizer","reason":"resolved"}`); code != 200 {
		t.Fatalf("unfreeze: %d", code)
	}
	if code, out := adminCall(t, adm, "GET", "/admin/frozen", "admin-dev-key", ""); code != 200 || strings.Contains(mustJSON(out), "agent:summarizer") {
		t.Fatalf("after unfreezing the agent: %d %s", code, mustJSON(out))
	}
	wantRefused(t, files, read, -32043) // revoked when frozen: it stays revoked
}

// delegateToSummarizer has alice send the summarizer a message delegating
// parent attenuated to the handle h, and returns the child it received.
func delegateToSummarizer(t *testing.T, a *harness, summarizer *summarizerAgent, parent issued, h string) issued {
	t.Helper()
	send := map[string]any{"message": map[string]any{"role": "user", "messageId": "m1",
		"parts": []any{map[string]any{"kind": "text", "text": "summarize Q1"}}},
		"metadata": map[string]any{agentcard.ExtensionURI: map[string]any{"capabilities": []string{parent.ID},
			"attenuations": map[string]any{parent.ID: map[string]any{"resourceHandles": []string{h}}}}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": send})
	if _, resp := a.post("summarizer", "alice-dev-key", string(body)); decodeRPC(t, resp).Error != nil {
		t.Fatalf("delegating send: %s", resp)
	}
	if len(summarizer.delegated) != 1 {
		t.Fatalf("the summarizer got %d capabilities, want its child", len(summarizer.delegated))
	}
	return summarizer.delegated[0]
}

// delegationWorld is two replicas fronting a files server and the
// summarizer agent, and alice's capability on both reports, issued at
// /mcp/files.
type delegationWorld struct {
	files      *mcpFiles
	summarizer *summarizerAgent
	a, b       *harness
	trails     [2]string
	parent     issued
}

func newDelegationWorld(t *testing.T) delegationWorld {
	t.Helper()
	w := delegationWorld{files: &mcpFiles{}, summarizer: &summarizerAgent{}}
	sumSrv := httptest.NewServer(withCard(w.summarizer))
	t.Cleanup(sumSrv.Close)
	w.a, w.b, w.trails = mcpReplicas(t, w.files.serve(t), sumSrv.URL)
	w.parent = issuedFrom(t, w.a.mcpRPC("alice-dev-key", "a2a/capabilities/request",
		map[string]any{"grants": []string{"files:read"}, "resourceQuery": map[string]any{"collection": "reports"}}))
	return w
}
