package proxy_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// bodyOutbound is a front's Outbound that sets the body it built.
type bodyOutbound []byte

func (bodyOutbound) Vouched() (proxy.Context, bool) { return proxy.Context{}, false }

func (b bodyOutbound) Prepare(out *http.Request) { proxy.SetBody(out, b) }

// TestBodyForwardedWithHeaders: a body set with proxy.SetBody goes
// upstream in the same write as the request's headers; a body forwarded
// as the caller sent it costs a write of its own. The upstream receives
// the same bytes either way, whatever the caller's body was.
func TestBodyForwardedWithHeaders(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`
	tests := []struct {
		name       string
		set        bool
		wantWrites int64
	}{
		{"proxy.SetBody", true, 1},
		{"caller's body", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = io.ReadAll(r.Body)
				w.WriteHeader(http.StatusNoContent)
			}))
			defer up.Close()
			target, _ := url.Parse(up.URL)
			var writes atomic.Int64
			tr := proxy.NewTransport()
			dial := tr.DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return countingConn{Conn: c, writes: &writes}, nil
			}
			p := proxy.New(target, proxy.Options{Transport: tr})
			req := httptest.NewRequest(http.MethodPost, "/a2a/x", nil)
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader([]byte(body))), int64(len(body))
			if tt.set {
				req.Body = io.NopCloser(strings.NewReader(`{"caller":"bytes the front replaced"}`))
				req = req.WithContext(proxy.WithOutbound(req.Context(), bodyOutbound(body)))
			}
			rw := httptest.NewRecorder()
			p.ServeHTTP(rw, req)
			if rw.Code != http.StatusNoContent || string(got) != body {
				t.Fatalf("status %d, upstream received %q", rw.Code, got)
			}
			if n := writes.Load(); n != tt.wantWrites {
				t.Errorf("%d writes on the upstream connection, want %d", n, tt.wantWrites)
			}
		})
	}
}
