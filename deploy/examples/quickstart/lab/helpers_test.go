package lab

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

const testSecret = "lab-host-secret"

// newTestHost serves a host with opts (AuthToken and Now defaulted) on
// httptest.
func newTestHost(t *testing.T, opts Options) (*Host, *httptest.Server) {
	t.Helper()
	if opts.AuthToken == "" {
		opts.AuthToken = testSecret
	}
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		_ = h.Close()
		srv.Close()
	})
	return h, srv
}

// open opens a session and its stream.
func open(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	ctx := testCtx(t)
	c, err := NewSession(ctx, srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.OpenStream(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var seq int

// send sends body with a fresh id and returns the id.
func send(t *testing.T, c *Client, body a2e.Body) string {
	t.Helper()
	seq++
	id := "m" + string(rune('a'+seq%26)) + time.Now().Format("150405.000000000")
	if status, err := c.SendMessage(testCtx(t), a2e.NewEnvelope("", id, testNow, a2e.KeyA2E, a2e.Version1), body); err != nil || status != 202 {
		t.Fatalf("send %T: status %d, %v", body, status, err)
	}
	return id
}

// next reads the next message from the stream.
func next(t *testing.T, c *Client) a2e.Message {
	t.Helper()
	m, err := c.Next(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// handshake completes a handshake for caps and returns the response.
func handshake(t *testing.T, c *Client, token string, caps ...string) *a2e.HandshakeResp {
	t.Helper()
	id := send(t, c, &a2e.HandshakeReq{AgentID: "test-agent", AgentCaps: caps, AuthToken: token})
	m := next(t, c)
	resp, ok := m.Body.(*a2e.HandshakeResp)
	if !ok || resp.ReqID != id {
		t.Fatalf("got %s, want handshake/resp to %s", m.Raw, id)
	}
	return resp
}

// expectError reads the next message and checks it is an A2E error.
func expectError(t *testing.T, c *Client, reqID, code string) *a2e.Error {
	t.Helper()
	m := next(t, c)
	e, ok := m.Body.(*a2e.Error)
	if !ok || e.Code != code || (reqID != "" && e.ReqID != reqID) {
		t.Fatalf("got %s, want error %s for %q", m.Raw, code, reqID)
	}
	return e
}
