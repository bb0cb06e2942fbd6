package mcpfront_test

import (
	"context"
	"net/http"
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
	req, _ := http.NewRequest(http.MethodGet, w.gateway.URL+"/mcp/files", nil)
	req.Header.Set("Authorization", "Bearer "+bobKey)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(w.upstream.seen()) != before {
		t.Errorf("bob opened alice's stream: %d, the server saw %d requests", resp.StatusCode, len(w.upstream.seen())-before)
	}
}

// TestSessionEnd: DELETE ends a session for its principal only: bob's
// DELETE of alice's session is 404 and the server sees nothing; alice's
// ends it at the server.
func TestSessionEnd(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	cs := w.connect(t, aliceKey, "2025-11-25")
	del := func(key string) int {
		req, _ := http.NewRequest(http.MethodDelete, w.gateway.URL+"/mcp/files", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Mcp-Session-Id", cs.ID())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
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
