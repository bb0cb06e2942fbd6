package summarizer_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRedirectIsNotFollowed: a gateway URL that redirects must not make
// the summarizer re-send a delegated token (or its own credential)
// elsewhere.
func TestRedirectIsNotFollowed(t *testing.T) {
	var stolen atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { stolen.Add(1) }))
	defer evil.Close()
	redirecting := httptest.NewServer(http.RedirectHandler(evil.URL+"/a2a/documents", http.StatusTemporaryRedirect))
	defer redirecting.Close()
	_, srv := newAgent(t, redirecting.URL+"/a2a/documents")
	resp := call(t, srv.URL, "message/send", sendIn("message/send", "x", []any{delegated("cap_1", "tok-secret", "rh_001")}), nil)
	got := decodeAnswer(t, resp).text()
	if !strings.Contains(got, "- Q1 Financial Summary: failed (") || !strings.Contains(got, "redirect") {
		t.Errorf("answer %q, want a failed line naming the redirect", got)
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}
