package mcpfront_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServerToClientStream: in a session, the server's request on the
// standalone stream reaches the client through the gateway with the
// catalog's ids redacted, and the client's response reaches the server;
// another principal cannot open the session's stream.
func TestServerToClientStream(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	asked := make(chan string, 1)
	c := sdk.NewClient(&sdk.Implementation{Name: "sampler", Version: "1"}, &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			asked <- req.Params.Messages[0].Content.(*sdk.TextContent).Text
			return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: "done"}}, nil
		},
	})
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: w.gateway.URL + "/mcp/files",
		HTTPClient: &http.Client{Transport: bearer{key: aliceKey}}, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	var ss *sdk.ServerSession
	for s := range w.upstream.server.Sessions() {
		ss = s
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ss.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 10, Messages: []*sdk.SamplingMessage{
		{Role: "user", Content: &sdk.TextContent{Text: "Summarize corpus/secret.md"}}}})
	if err != nil {
		t.Fatalf("the server's request through the gateway: %v", err)
	}
	if got := res.Content.(*sdk.TextContent).Text; got != "done" {
		t.Errorf("the server got %q", got)
	}
	if got := <-asked; got != "Summarize [resource]" {
		t.Errorf("the client was asked %q, want the catalog id redacted", got)
	}

	before := len(w.upstream.seen())
	if got := sessionDo(t, w, http.MethodGet, bobKey, cs.ID(), ""); got != http.StatusNotFound || len(w.upstream.seen()) != before {
		t.Errorf("bob opened alice's stream: %d, the server saw %d requests", got, len(w.upstream.seen())-before)
	}
}

// TestSessionEnd: DELETE ends a session for its principal only: bob's
// DELETE of alice's session is 404 and the server sees nothing; alice's
// ends it at the server.
func TestSessionEnd(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	cs := w.connect(t, aliceKey, "2025-11-25")
	del := func(key string) int { return sessionDo(t, w, http.MethodDelete, key, cs.ID(), "") }
	before := len(w.upstream.seen())
	if got := del(bobKey); got != http.StatusNotFound || len(w.upstream.seen()) != before {
		t.Errorf("bob's DELETE of alice's session: %d, the server saw %d requests", got, len(w.upstream.seen())-before)
	}
	if got := del(aliceKey); got < 200 || got > 299 {
		t.Errorf("alice's DELETE: %d", got)
	}
	for range w.upstream.server.Sessions() {
		t.Error("the session outlived its end")
	}
}

// TestClientResponseNamingRealID: a client's response to a server's
// request acts under no capability, so one naming a real id of the
// catalog is refused and the server sees nothing; so is one carrying a
// capability in a _meta, at any depth, which would carry its token to
// the server; one naming neither is forwarded.
func TestClientResponseNamingRealID(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	cs := w.connect(t, aliceKey, "2025-11-25")
	post := func(body string) int { return sessionDo(t, w, http.MethodPost, aliceKey, cs.ID(), body) }
	for _, tc := range []struct {
		name, body string
		refused    bool
	}{
		{"real id", `{"jsonrpc":"2.0","id":7,"result":{"roots":[{"uri":"corpus/secret.md"}]}}`, true},
		{"escaped real id", `{"jsonrpc":"2.0","id":7,"result":{"text":"corpus\/secret.md"}}`, true},
		{"no real id", `{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`, false},
		{"a capability in _meta", `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"dev.capgate/capability":{"capabilityToken":"eyJ.x.y"}}}}`, true},
		{"a capability deep in an error", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m","data":[{"_meta":{"dev.capgate/capability":{}}}]}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.upstream.seen())
			got := post(tc.body)
			reached := len(w.upstream.seen()) != before
			if tc.refused && (got != http.StatusBadRequest || reached) {
				t.Errorf("answered %d, the server saw it: %v; want 400 and nothing seen", got, reached)
			}
			if !tc.refused && !reached {
				t.Errorf("answered %d and the server never saw the response", got)
			}
		})
	}
}

// TestCallerMirrorHeadersStripped: a GET or a DELETE in a session has no
// body its Mcp-Method, Mcp-Name or Mcp-Param-* headers could be checked
// against: none of them reaches the server as the caller wrote it.
func TestCallerMirrorHeadersStripped(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	cs := w.connect(t, aliceKey, "2025-11-25")
	before := len(w.upstream.seen())
	req, _ := http.NewRequest(http.MethodDelete, w.gateway.URL+"/mcp/files", nil)
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "read_file")
	req.Header.Set("Mcp-Param-Path", "corpus/secret.md")
	req.Header["Mcp_param_path"] = []string{"corpus/secret.md"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	seen := w.upstream.seen()[before:]
	if resp.StatusCode < 200 || resp.StatusCode > 299 || len(seen) != 1 {
		t.Fatalf("DELETE answered %d, the server saw %d requests", resp.StatusCode, len(seen))
	}
	for k, v := range seen[0] {
		if n := strings.ToLower(strings.ReplaceAll(k, "_", "-")); strings.HasPrefix(n, "mcp-param-") || n == "mcp-method" || n == "mcp-name" {
			t.Errorf("the server got the caller's %s: %q", k, v)
		}
	}
}

// sessionDo sends one request in a session of the files server as the
// caller holding key, with body as JSON when not empty, and returns the
// status it got.
func sessionDo(t *testing.T, w *world, method, key, session, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, w.gateway.URL+"/mcp/files", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
