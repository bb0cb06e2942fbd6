package proxy_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/proxy"
)

type markKey struct{}

// TestModifyResponse checks that the hook sees the forwarded request's
// context and may replace the body, and that its error is answered by the
// error handler.
func TestModifyResponse(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "upstream")
	}))
	t.Cleanup(up.Close)
	target, _ := url.Parse(up.URL)
	errRefused := errors.New("refused")
	p := proxy.New(target, proxy.Options{
		Transport: proxy.NewTransport(),
		ModifyResponse: func(resp *http.Response) error {
			mark, _ := resp.Request.Context().Value(markKey{}).(string)
			if mark == "refuse" {
				return errRefused
			}
			resp.Body = io.NopCloser(strings.NewReader(mark))
			resp.ContentLength = -1
			resp.Header.Del("Content-Length")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, errRefused) {
				t.Errorf("error handler got %v", err)
			}
			w.WriteHeader(http.StatusTeapot)
		},
	})
	tests := []struct {
		mark       string
		wantStatus int
		wantBody   string
	}{
		{"rewritten", http.StatusOK, "rewritten"},
		{"refuse", http.StatusTeapot, ""},
	}
	for _, tt := range tests {
		t.Run(tt.mark, func(t *testing.T) {
			req := httptest.NewRequestWithContext(context.WithValue(context.Background(), markKey{}, tt.mark),
				http.MethodPost, "/a2a/echo", strings.NewReader("{}"))
			w := httptest.NewRecorder()
			p.ServeHTTP(w, req)
			if w.Code != tt.wantStatus || w.Body.String() != tt.wantBody {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body.String(), tt.wantStatus, tt.wantBody)
			}
		})
	}
}
