package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

func TestScopedResponseHeaders(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name string
		in   http.Header
		want http.Header
	}{
		{"what a caller needs passes",
			http.Header{
				"Content-Type": {"application/json; charset=UTF-8"}, "Content-Length": {"42"},
				"Cache-Control": {"no-store, max-age=0"}, "Traceparent": {tp}, "Date": {"Sun, 06 Nov 1994 08:49:37 GMT"},
				"X-Accel-Buffering": {"no"}, "Retry-After": {"3"}, "Pragma": {"no-cache"},
			},
			http.Header{
				"Content-Type": {"application/json; charset=utf-8"}, "Content-Length": {"42"},
				"Cache-Control": {"no-store, max-age=0"}, "Traceparent": {tp}, "Date": {"Sun, 06 Nov 1994 08:49:37 GMT"},
				"X-Accel-Buffering": {"no"}, "Retry-After": {"3"}, "Pragma": {"no-cache"},
			}},
		{"storage ids in other headers are dropped",
			http.Header{
				"X-Note-Id": {"notes/bob-ideas"}, "Link": {"<https://agent.example/notes/alice-groceries>; rel=related"},
				"Etag": {`"notes/bob-ideas"`}, "Location": {"/notes/bob-ideas"}, "Set-Cookie": {"n=notes/bob-ideas"},
				"Content-Disposition": {`attachment; filename="bob-ideas.txt"`}, "Tracestate": {"n=notes/bob-ideas"},
				"Trailer": {"X-Note-Id"},
			},
			http.Header{}},
		{"allowed headers carrying free text lose it",
			http.Header{
				"Content-Type":  {`application/json; note="notes/bob-ideas"; charset=utf-8`},
				"Cache-Control": {`private="notes/bob-ideas", max-age=60, no-cache=notes`},
				"Traceparent":   {"00-notes/bob-ideas-00f067aa0ba902b7-01"},
				"Retry-After":   {"notes/bob-ideas"},
				"Pragma":        {"notes/bob-ideas"},
			},
			http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Cache-Control": {"max-age=60"}}},
		{"event stream",
			http.Header{"Content-Type": {"text/event-stream"}, "Cache-Control": {"no-cache"}, "X-Accel-Buffering": {"no"}},
			http.Header{"Content-Type": {"text/event-stream"}, "Cache-Control": {"no-cache"}, "X-Accel-Buffering": {"no"}}},
		{"charset that is not a name is dropped",
			http.Header{"Content-Type": {`text/plain; charset="notes/bob ideas"`}},
			http.Header{"Content-Type": {"text/plain"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxy.ScopedResponseHeaders(tt.in)
			if !reflect.DeepEqual(tt.in, tt.want) {
				t.Errorf("got  %v\nwant %v", tt.in, tt.want)
			}
		})
	}
}

// TestScopeAnswerDropsTrailers: an upstream's trailers, announced or sent
// after the body, never reach the caller of a scoped answer.
func TestScopeAnswerDropsTrailers(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Note-Id")
		w.Header().Set("X-Note-Id", "notes/bob-ideas")
		w.Header().Set("Link", "</notes/alice-groceries>; rel=related")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		w.(http.Flusher).Flush()
		w.Header().Set("X-Note-Id", "notes/bob-ideas")
		w.Header().Set(http.TrailerPrefix+"X-Late", "notes/alice-groceries")
	}))
	t.Cleanup(up.Close)
	target, _ := url.Parse(up.URL)
	p := proxy.New(target, proxy.Options{
		Transport:      proxy.NewTransport(),
		ModifyResponse: func(resp *http.Response) error { proxy.ScopeAnswer(resp); return nil },
	})
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	resp, err := http.Post(front.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Fatalf("answer %d %s", resp.StatusCode, body)
	}
	all := []http.Header{resp.Header, resp.Trailer}
	for _, h := range all {
		for name, vv := range h {
			if strings.Contains(strings.Join(vv, " "), "notes/") || strings.EqualFold(name, "Trailer") {
				t.Errorf("the caller saw %s: %v", name, vv)
			}
		}
	}
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q, want application/json", resp.Header.Get("Content-Type"))
	}
}
