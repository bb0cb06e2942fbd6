package mcpfront_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/mcpfront"
)

// frozenWorld is the world with an operator's freeze set.
func frozenWorld(t *testing.T, mod func(*config.MCPServer)) (*world, *freeze.Set) {
	t.Helper()
	set := freeze.New(context.Background(), freeze.Options{})
	w := newWorldWith(t, "2025-11-25", func(s *config.MCPServer, d *mcpfront.Deps) {
		d.Frozen = set
		if mod != nil {
			mod(s)
		}
	})
	return w, set
}

// rawSession opens a session through the gateway as alice, without a
// client that would answer the server: the test reads what arrives.
func rawSession(t *testing.T, w *world) string {
	t.Helper()
	resp := rawPost(t, w, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize opened no session: %d", resp.StatusCode)
	}
	resp = rawPost(t, w, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return id
}

// rawPost posts body as alice in session id ("" for none).
func rawPost(t *testing.T, w *world, id, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, w.gateway.URL+"/mcp/files", strings.NewReader(body))
	rawHeaders(req, id)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func rawHeaders(req *http.Request, id string) {
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
}

// dataLines reads the data lines of an event stream, closing out at its
// end.
func dataLines(t *testing.T, body io.ReadCloser) <-chan string {
	t.Helper()
	t.Cleanup(func() { body.Close() })
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- line
			}
		}
	}()
	return out
}

// nextData is the next data line; it fails the test after 10s.
func nextData(t *testing.T, lines <-chan string) (string, bool) {
	t.Helper()
	select {
	case l, ok := <-lines:
		return l, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return "", false
	}
}

// wantFrozenEvent checks that line is the frozen refusal, and that the
// stream ends after it.
func wantFrozenEvent(t *testing.T, line string, lines <-chan string) {
	t.Helper()
	var r struct {
		Error *struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error == nil ||
		r.Error.Code != -32043 || r.Error.Data["reason"] != "capability_revoked" || r.Error.Data["detail"] != "frozen" {
		t.Fatalf("got %s, want the frozen refusal", line)
	}
	if l, ok := nextData(t, lines); ok {
		t.Fatalf("the stream went on after the refusal: %s", l)
	}
}

// serverSession is the server's side of the session id.
func serverSession(t *testing.T, w *world, id string) *sdk.ServerSession {
	t.Helper()
	for s := range w.upstream.server.Sessions() {
		if s.ID() == id {
			return s
		}
	}
	t.Fatalf("the server holds no session %s", id)
	return nil
}

// openStandalone opens the session's standalone stream as alice.
func openStandalone(t *testing.T, w *world, id string) <-chan string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.gateway.URL+"/mcp/files", nil)
	rawHeaders(req, id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	return dataLines(t, resp.Body)
}

// ping has the server ping the client on the standalone stream; nobody
// answers, so the ping gives up with ctx.
func ping(ctx context.Context, ss *sdk.ServerSession) {
	go func() { _ = ss.Ping(ctx, nil) }()
}

// TestFreezeEndsStandaloneStream: a session's standalone stream, opened
// before its server or principal is frozen, ends at the server's next
// message: the client gets the frozen refusal in its place, never the
// message, and the stream closes. After the unfreeze a new session's
// stream carries the server's messages again.
func TestFreezeEndsStandaloneStream(t *testing.T) {
	for _, tt := range []struct {
		kind freeze.Kind
		name string
	}{{freeze.Agent, "files"}, {freeze.Principal, alice}} {
		t.Run(string(tt.kind), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			w, set := frozenWorld(t, nil)
			id := rawSession(t, w)
			lines := openStandalone(t, w, id)
			ss := serverSession(t, w, id)
			ping(ctx, ss)
			if l, _ := nextData(t, lines); !strings.Contains(l, `"method":"ping"`) {
				t.Fatalf("before the freeze: %s", l)
			}
			if _, err := set.Freeze(ctx, tt.kind, tt.name, "user:admin@example.com", "incident 7"); err != nil {
				t.Fatal(err)
			}
			ping(ctx, ss)
			l, _ := nextData(t, lines)
			if strings.Contains(l, "ping") {
				t.Fatalf("the server's message reached the client after the freeze: %s", l)
			}
			wantFrozenEvent(t, l, lines)
			if _, err := set.Unfreeze(ctx, tt.kind, tt.name, "user:admin@example.com", "resolved"); err != nil {
				t.Fatal(err)
			}
			fresh := rawSession(t, w)
			lines = openStandalone(t, w, fresh)
			ping(ctx, serverSession(t, w, fresh))
			if l, _ := nextData(t, lines); !strings.Contains(l, `"method":"ping"`) {
				t.Fatalf("after the unfreeze: %s", l)
			}
		})
	}
}

// TestFreezeEndsStreamedToolAnswer: a tool call whose answer streams,
// under a capability the freeze has not revoked yet (the set is frozen,
// the revocation store untouched), ends at the server's next event once
// the principal or the server is frozen: the client gets the frozen
// refusal in place of the tool's result, and the stream closes. After the
// unfreeze the same call streams to its result.
func TestFreezeEndsStreamedToolAnswer(t *testing.T) {
	for _, tt := range []struct {
		kind freeze.Kind
		name string
	}{{freeze.Agent, "files"}, {freeze.Principal, alice}} {
		t.Run(string(tt.kind), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			w, set := frozenWorld(t, func(s *config.MCPServer) { s.Tools["slow"] = config.MCPTool{Operation: "read"} })
			release := make(chan struct{}, 1)
			sdk.AddTool(w.upstream.server, &sdk.Tool{Name: "slow", Description: "Answers once released"},
				func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: "started"})
					select {
					case <-release:
					case <-ctx.Done():
					}
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "tool result"}}}, nil, nil
				})
			c := w.mint(t, alice, []string{"read"})
			call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{},` +
				`"_meta":{"progressToken":"p1","dev.capgate/capability":{"capabilityId":"` + c.id + `"}}}}`
			open := func() <-chan string {
				resp := rawPost(t, w, rawSession(t, w), call)
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
					b, _ := io.ReadAll(resp.Body)
					t.Fatalf("the answer does not stream: %d %q %s", resp.StatusCode, ct, b)
				}
				lines := dataLines(t, resp.Body)
				if l, _ := nextData(t, lines); !strings.Contains(l, "started") {
					t.Fatalf("first event: %s", l)
				}
				return lines
			}
			lines := open()
			if _, err := set.Freeze(ctx, tt.kind, tt.name, "user:admin@example.com", "incident 7"); err != nil {
				t.Fatal(err)
			}
			release <- struct{}{}
			l, _ := nextData(t, lines)
			if strings.Contains(l, "tool result") {
				t.Fatalf("the tool's result reached the client after the freeze: %s", l)
			}
			wantFrozenEvent(t, l, lines)
			if _, err := set.Unfreeze(ctx, tt.kind, tt.name, "user:admin@example.com", "resolved"); err != nil {
				t.Fatal(err)
			}
			lines = open()
			release <- struct{}{}
			if l, _ := nextData(t, lines); !strings.Contains(l, "tool result") {
				t.Fatalf("after the unfreeze: %s", l)
			}
		})
	}
}
