package a2efront_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/revocation/redistest"
)

// postSession sends POST /session with hc (nil: no credentials) and
// returns the status, the body and the Retry-After header.
func postSession(t *testing.T, hc *http.Client, base string) (int, string, string) {
	t.Helper()
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, base+"session", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(t, resp), resp.Header.Get("Retry-After")
}

// TestAnonymousFloodLeavesRoomForCredentials: a flood of sessions reserved
// without credentials (as from many addresses: the per-client cap is
// raised) fills only the anonymous share; a caller who sends credentials
// with POST /session still gets a session, on every replica, and uses it.
func TestAnonymousFloodLeavesRoomForCredentials(t *testing.T) {
	stores := map[string]func(t *testing.T) []a2efront.SessionStore{
		"memory": func(*testing.T) []a2efront.SessionStore { return nil },
		"redis":  func(t *testing.T) []a2efront.SessionStore { return redisStores(t, redistest.Start(t), 2) },
	}
	for name, st := range stores {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, worldOptions{stores: st(t), config: func(c *a2efront.Config) {
				c.MaxSessions, c.MaxAnonymousSessions, c.MaxSessionsPerClient = 20, 5, 1000
			}})
			refused := 0
			for range 100 {
				status, body, _ := postSession(t, nil, w.base(0))
				switch {
				case status == http.StatusOK:
				case status == http.StatusServiceUnavailable && strings.Contains(body, "too_many_anonymous_sessions"):
					refused++
				default:
					t.Fatalf("anonymous POST /session: %d %s", status, body)
				}
			}
			if refused != 95 {
				t.Errorf("%d of 100 anonymous reservations refused, want 95 (a share of 5)", refused)
			}
			for i := range 2 {
				c, err := lab.NewSession(testCtx(t), bearer(aliceKey), w.base(len(w.fronts)-1))
				if err != nil {
					t.Fatalf("alice's session %d with credentials after the flood: %v", i, err)
				}
				if err := c.OpenStream(testCtx(t)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				if resp, m := handshake(t, c, aliceKey, "tools"); !resp.OK {
					t.Fatalf("alice's handshake after the flood: %s", m.Raw)
				}
			}
		})
	}
}

// TestAnonymousPerClientCap: one client holds at most MaxSessionsPerClient
// reservations awaiting their handshake and is then refused with 429 and
// a message saying why; authenticating one frees its place, and the same
// client with credentials is not capped.
func TestAnonymousPerClientCap(t *testing.T) {
	w := newWorld(t, worldOptions{})
	var first *lab.Client
	for i := range a2efront.DefaultMaxSessionsPerClient {
		c, err := lab.NewSession(testCtx(t), nil, w.base(0))
		if err != nil {
			t.Fatalf("anonymous session %d: %v", i, err)
		}
		if first == nil {
			first = c
		}
	}
	status, body, retry := postSession(t, nil, w.base(0))
	if status != http.StatusTooManyRequests || !strings.Contains(body, "too_many_client_sessions") ||
		!strings.Contains(body, "8 sessions awaiting their handshake") || retry == "" {
		t.Fatalf("one anonymous session too many: %d %s (Retry-After %q), want 429 too_many_client_sessions", status, body, retry)
	}
	if status, body, _ := postSession(t, bearer(aliceKey), w.base(0)); status != http.StatusOK {
		t.Fatalf("the same client with credentials: %d %s", status, body)
	}
	if err := first.OpenStream(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Close() })
	if resp, m := handshake(t, first, aliceKey, "tools"); !resp.OK {
		t.Fatalf("handshake: %s", m.Raw)
	}
	if status, body, _ := postSession(t, nil, w.base(0)); status != http.StatusOK {
		t.Fatalf("after one reservation authenticated: %d %s, want room", status, body)
	}
}
