package mcpfront_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
)

// TestSessionsBoundToTheirPrincipal: a session the server opened for
// alice serves alice; bob presenting its id, or anyone presenting an id
// the gateway never saw opened, gets 404 and the server sees nothing.
func TestSessionsBoundToTheirPrincipal(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	cs := w.connect(t, aliceKey, "2025-11-25")
	sid := cs.ID()
	if sid == "" {
		t.Fatal("the server opened no session")
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("alice's own session: %v", err)
	}
	tests := []struct {
		name       string
		key, sid   string
		wantStatus int
	}{
		{"the owner", aliceKey, sid, http.StatusOK},
		{"another principal", bobKey, sid, http.StatusNotFound},
		{"a session never opened", aliceKey, "not-a-session", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.wantPing(t, tt.wantStatus, "Bearer "+tt.key, "Mcp-Session-Id", tt.sid, "Mcp-Protocol-Version", "2025-11-25")
		})
	}
	// Bob names his own session and alice's beside it: a server that
	// reads the other value, or folds '_' into '-', would act in alice's.
	bobs := w.connect(t, bobKey, "2025-11-25").ID()
	for name, second := range map[string]string{"twice": "Mcp-Session-Id", "by a look-alike": "Mcp_Session_Id",
		"by a lower-case look-alike": "mcp_session_id"} {
		t.Run("another principal's session named "+name, func(t *testing.T) {
			w.wantPing(t, http.StatusBadRequest, "Bearer "+bobKey, "Mcp-Session-Id", bobs, second, sid,
				"Mcp-Protocol-Version", "2025-11-25")
		})
	}
}

// TestSessionInUseStaysBound: the Go SDK's server names the session in
// its answer to initialize alone; a session used more often than the
// index's TTL stays its owner's however long it lives, and one left idle
// past it is forgotten (404).
func TestSessionInUseStaysBound(t *testing.T) {
	w := newWorld(t, "2025-11-25")
	sid := w.connect(t, aliceKey, "2025-11-25").ID()
	ping := func(status int) {
		t.Helper()
		w.wantPing(t, status, "Bearer "+aliceKey, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	}
	for range 3 {
		w.advance(mcpfront.DefaultSessionTTL * 3 / 4)
		ping(http.StatusOK)
	}
	w.advance(mcpfront.DefaultSessionTTL + time.Minute)
	ping(http.StatusNotFound)
}

// downIndex is a session index that cannot answer.
type downIndex struct{}

func (downIndex) Claim(context.Context, string, string, []string) ([]string, error) {
	return nil, errors.New("index down")
}

func (downIndex) Owners(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("index down")
}

// TestSessionIndexDownFailsClosed: a request naming a session while the
// session index cannot answer is refused (503), and the server sees
// nothing.
func TestSessionIndexDownFailsClosed(t *testing.T) {
	w := newWorldWith(t, "2025-11-25", func(_ *config.MCPServer, d *mcpfront.Deps) { d.Sessions = downIndex{} })
	w.wantPing(t, http.StatusServiceUnavailable, "Bearer "+aliceKey, "Mcp-Session-Id", "some-session")
}

// wantPing posts a ping to /mcp/files with the Authorization header auth
// and the header pairs hdr, and fails unless the answer has wantStatus
// and, when that is not 200, the server saw nothing of it.
func (w *world) wantPing(t *testing.T, wantStatus int, auth string, hdr ...string) {
	t.Helper()
	before := len(w.upstream.seen())
	req, err := http.NewRequest(http.MethodPost, w.gateway.URL+"/mcp/files", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header[hdr[i]] = append(req.Header[hdr[i]], hdr[i+1]) // as written: twice, or a look-alike
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != wantStatus {
		t.Errorf("status %d, want %d", resp.StatusCode, wantStatus)
	}
	if seen := len(w.upstream.seen()) - before; wantStatus != http.StatusOK && seen != 0 {
		t.Errorf("the server saw %d requests of a refused call", seen)
	}
}
