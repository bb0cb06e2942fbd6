package mcpfront_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-jose/go-jose/v4"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

const (
	alice    = "user:alice@example.com"
	bob      = "user:bob@example.com"
	aliceKey = "dev-key-alice-0123456789"
	bobKey   = "dev-key-bob-0123456789"
)

// The corpus of the files server: real ids the caller must never see.
var corpus = map[string]string{
	"corpus/q1-report.md": "Q1 revenue grew 12%.",
	"corpus/q2-report.md": "Q2 revenue grew 9%.",
	"corpus/secret.md":    "the merger closes in May",
}

// world is a files MCP server built on the official Go SDK, behind the
// front, with the stores a capability is checked against.
type world struct {
	mu       sync.Mutex // guards now
	now      time.Time
	keys     *captoken.KeySet
	index    *capindex.Memory
	revoked  *revocation.Memory
	upstream *upstream
	gateway  *httptest.Server
	// handler is the gateway's router, which gateway serves.
	handler http.Handler
	// callHeaders are the answer headers the caller got on tool calls.
	callHeaders answerHeaders
	// audit holds the front's audit events, one JSON object a line.
	audit syncBuffer
}

// clock is the world's clock, which the gateway reads on its goroutines.
func (w *world) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

// advance moves the world's clock on by d.
func (w *world) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

// syncBuffer is a buffer the front's handlers write concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixedPolicy is a policy that never reloads.
type fixedPolicy struct{ p *policy.Policy }

func (f fixedPolicy) Current() *policy.Policy { return f.p }

// loadPolicy loads testdata/policy.yaml over the servers' catalog.
func loadPolicy(t testing.TB, servers []config.MCPServer) fixedPolicy {
	t.Helper()
	data, err := os.ReadFile("testdata/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{MCPServers: servers}
	pol, problems, err := policy.Load(context.Background(), data, "policy.yaml", cfg.Catalog())
	if err != nil {
		t.Fatal(err, problems)
	}
	return fixedPolicy{pol}
}

// upstream is the files server, counting what reached it.
type upstream struct {
	calls   atomic.Int64 // tools/call requests that reached a tool
	reads   atomic.Int64 // resources/read requests that reached a resource
	server  *sdk.Server  // the SDK server, whose sessions a test drives
	prompts atomic.Int64 // prompts/get requests that reached a prompt
	mu      sync.Mutex
	headers []http.Header // every request's headers, as the server saw them
	args    []string      // the path of every read_file call
}

func (u *upstream) seen() []http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]http.Header(nil), u.headers...)
}

type readArgs struct {
	Path string `json:"path"`
}

type readOut struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// newUpstream serves read_file, write_file and an unlisted admin tool.
// A stateless server is one that speaks 2026-07-28; a stateful one opens
// sessions at initialize, as before it.
func newUpstream(t testing.TB, stateless bool) (*upstream, *httptest.Server) {
	u := &upstream{}
	s := sdk.NewServer(&sdk.Implementation{Name: "files", Version: "1.0.0"}, nil)
	u.server = s
	sdk.AddTool(s, &sdk.Tool{Name: "read_file", Description: "Read a file of the corpus, such as corpus/secret.md"},
		func(_ context.Context, _ *sdk.CallToolRequest, in readArgs) (*sdk.CallToolResult, readOut, error) {
			u.calls.Add(1)
			u.mu.Lock()
			u.args = append(u.args, in.Path)
			u.mu.Unlock()
			body, ok := corpus[in.Path]
			if !ok {
				return nil, readOut{}, fmt.Errorf("no such file: %s", in.Path)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Path + ": " + body}}},
				readOut{Path: in.Path, Content: body}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "write_file", Description: "Write a file of the corpus"},
		func(_ context.Context, _ *sdk.CallToolRequest, in writeArgs) (*sdk.CallToolResult, any, error) {
			u.calls.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote " + in.Path}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "admin_reset", Description: "Not fronted"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			u.calls.Add(1)
			return &sdk.CallToolResult{}, nil, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "summarize", Description: "Summarize the board's notes"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			u.prompts.Add(1)
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user",
				Content: &sdk.TextContent{Text: "Summarize corpus/secret.md in three lines."}}}}, nil
		})
	for path, body := range corpus {
		s.AddResource(&sdk.Resource{URI: path, Name: path}, func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			u.reads.Add(1)
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: path, Text: path + ": " + body}}}, nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: stateless})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.headers = append(u.headers, r.Header.Clone())
		u.mu.Unlock()
		// A server that names real ids in its answer headers: on a tool
		// call, the caller must see none of them.
		w.Header().Set("X-File-Id", "corpus/secret.md")
		w.Header().Set("Link", "</files/corpus/q2-report.md>; rel=related")
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return u, srv
}

// filesServer is the config of the files server behind url.
func filesServer(url string) config.MCPServer {
	return config.MCPServer{
		Name: "files", URL: url, Principal: "agent:files",
		Grants: []policy.Grant{{ID: "files:read", Operations: []string{"read"}, Attenuable: true},
			{ID: "files:write", Operations: []string{"write"}}},
		Tools: map[string]config.MCPTool{
			"read_file":  {Operation: "read", Resources: []string{"/path"}},
			"write_file": {Operation: "write", Resources: []string{"/path"}},
		},
		Resources: &config.MCPResources{Operation: "read"}, Prompts: &config.MCPPrompts{Operation: "read"},
		Catalog: []policy.Resource{{ID: "corpus/q1-report.md", DisplayName: "Q1 report", Collection: "reports"},
			{ID: "corpus/q2-report.md", DisplayName: "Q2 report", Collection: "reports"},
			{ID: "corpus/secret.md", DisplayName: "Merger notes", Collection: "board"}},
	}
}

// newWorld builds the world around a server speaking version: the newest
// revision for "" or 2026-07-28, else the session-based revisions.
func newWorld(t testing.TB, version string) *world {
	t.Helper()
	return newWorldWith(t, version, nil)
}

// newWorldWith is newWorld with the server's config and the front's deps
// changed by mod before the front is built.
func newWorldWith(t testing.TB, version string, mod func(*config.MCPServer, *mcpfront.Deps)) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{now: time.Now()}
	clock := w.clock
	var err error
	if w.keys, err = captoken.GenerateKeySet(jose.EdDSA); err != nil {
		t.Fatal(err)
	}
	v, err := captoken.NewVerifier(w.keys, captoken.VerifierConfig{Issuer: "capgate", Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	w.index = capindex.NewMemory(clock)
	w.revoked = revocation.NewMemory(revocation.MemoryOptions{Now: clock})
	t.Cleanup(func() { _ = w.revoked.Close(); _ = w.index.Close() })
	a, err := authn.New(ctx, nil, []authn.DevKey{
		{Hash: authn.HashKey(aliceKey), Principal: alice, Groups: []string{"finance"}}, {Hash: authn.HashKey(bobKey), Principal: bob},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var up *httptest.Server
	w.upstream, up = newUpstream(t, version == "" || version == "2026-07-28")
	servers := []config.MCPServer{filesServer(up.URL)}
	deps := mcpfront.Deps{Authenticator: a, Verifier: v, Index: w.index, Revocations: w.revoked,
		Keys: w.keys, Policy: loadPolicy(t, servers), Audit: slog.New(slog.NewJSONHandler(&w.audit, nil)),
		Runtime: platform.Runtime{Now: clock}}
	if mod != nil {
		mod(&servers[0], &deps)
	}
	f, err := mcpfront.New(mcpfront.Config{
		Servers: servers, PublicURL: "https://gateway.example",
		OIDCIssuers: []string{"https://idp.example"}, Issuer: "capgate", MaxTTL: time.Hour,
	}, deps)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	f.Mount(r)
	w.handler = r
	w.gateway = httptest.NewServer(r)
	t.Cleanup(w.gateway.Close)
	return w
}

// capability is one minted for a test: its id, token and handles.
type capability struct {
	id, token string
	handles   []string
	claims    captoken.Claims
}

// mint issues holder a capability on the files server for ops over the
// given real ids, and records it in the index, as issuance does.
func (w *world) mint(t testing.TB, holder string, ops []string, ids ...string) capability {
	t.Helper()
	resources := map[string]string{}
	var handles []string
	for _, id := range ids {
		h := captoken.NewHandle()
		handles, resources[h] = append(handles, h), id
	}
	c := captoken.Claims{
		Issuer: "capgate", Principal: holder, Holder: holder, Audience: "files",
		CapabilityID: captoken.NewCapabilityID(), Grant: "files:read", Operations: ops, Handles: handles,
		Expiry: captoken.NewNumericDate(w.clock().Add(time.Hour)), NotBefore: captoken.NewNumericDate(w.clock().Add(-time.Minute)),
		IssuedAt: captoken.NewNumericDate(w.clock().Add(-time.Minute)), RevocationID: captoken.NewRevocationID(),
	}
	token, err := captoken.Mint(w.keys, c, resources)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := captoken.Pack(token)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.index.Put(context.Background(), capindex.Record{CapabilityID: c.CapabilityID, Token: packed,
		Principal: holder, Holder: holder, Agent: "files", Grant: c.Grant, IssuedAt: w.clock(), Expires: w.clock().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return capability{id: c.CapabilityID, token: token, handles: handles, claims: c}
}

// bearer adds the caller's dev key to every request, and keeps the
// headers of the answers to tool calls.
type bearer struct {
	key   string
	calls *answerHeaders
}

// answerHeaders are the headers the caller got on its tool calls.
type answerHeaders struct {
	mu sync.Mutex
	hs []http.Header
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && b.calls != nil && bytes.Contains(body, []byte(`"tools/call"`)) {
		b.calls.mu.Lock()
		b.calls.hs = append(b.calls.hs, resp.Header.Clone())
		b.calls.mu.Unlock()
	}
	return resp, err
}

// connect opens a session of the official Go SDK client through the
// gateway, as the holder of key, speaking version (empty: the newest).
func (w *world) connect(t *testing.T, key, version string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "capgate-test", Version: "1.0.0"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: w.gateway.URL + "/mcp/files", HTTPClient: &http.Client{Transport: bearer{key: key, calls: &w.callHeaders}}, MaxRetries: -1}
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatalf("connect through the gateway (%q): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// withCapability is the _meta presenting a capability by id.
func withCapability(id string) sdk.Meta {
	return sdk.Meta{"dev.capgate/capability": map[string]any{"capabilityId": id}}
}
