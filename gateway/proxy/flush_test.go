package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

// flushCounter is a ResponseWriter that counts the flushes it is asked for.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++; f.ResponseRecorder.Flush() }

// upstreamAnswering serves an upstream that answers every request with
// the given content type and body, streaming it (no Content-Length) when
// chunked is set, and returns a proxy to it.
func upstreamAnswering(t testing.TB, contentType, body string, chunked bool) *proxy.Proxy {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		for _, ev := range strings.SplitAfter(body, "\n\n") {
			_, _ = io.WriteString(w, ev)
			if chunked {
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(up.Close)
	target, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	return proxy.New(target, proxy.Options{Transport: proxy.NewTransport()})
}

// TestFlushOnlyWhatStreams: a unary answer with a known length is written
// without a flush (one write when the handler returns); an event stream
// or an answer of unknown length is flushed as it arrives.
func TestFlushOnlyWhatStreams(t *testing.T) {
	const unary = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
	const events = "data: {\"n\":1}\n\ndata: {\"n\":2}\n\n"
	tests := []struct {
		name        string
		contentType string
		body        string
		chunked     bool
		wantFlushes bool
	}{
		{"unary JSON", "application/json", unary, false, false},
		{"event stream", "text/event-stream", events, true, true},
		{"event stream with parameters", "text/event-stream; charset=utf-8", events, true, true},
		{"JSON of unknown length", "application/json", unary + "\n\n" + unary, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := upstreamAnswering(t, tt.contentType, tt.body, tt.chunked)
			w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
			p.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
			if got := w.Body.String(); got != tt.body {
				t.Fatalf("body = %q, want %q", got, tt.body)
			}
			if got := w.flushes > 0; got != tt.wantFlushes {
				t.Fatalf("flushes = %d, want flushed = %v", w.flushes, tt.wantFlushes)
			}
		})
	}
}

// BenchmarkForwardUnary forwards one small JSON-RPC answer through the
// proxy over loopback; allocations are counted for the whole process.
func BenchmarkForwardUnary(b *testing.B) {
	p := upstreamAnswering(b, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, false)
	front := httptest.NewServer(p)
	b.Cleanup(front.Close)
	client := &http.Client{Transport: proxy.NewTransport()}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Post(front.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}
