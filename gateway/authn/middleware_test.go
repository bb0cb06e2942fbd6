package authn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/capgate/capgate/gateway/authn/oidctest"
)

func TestMiddleware(t *testing.T) {
	clock := newClock()
	down := oidctest.New(t)
	down.SetAvailable(false)
	a := newAuthenticator(t, clock, []IssuerConfig{{Issuer: down.URL(), Audience: testAudience}})
	downToken := down.Sign(with(down.Claims(testAudience, clock.Now()), "email", "a@b"))

	tests := []struct {
		name          string
		headers       []string
		wantStatus    int
		wantChallenge string
		wantRetry     string
		wantBody      string
	}{
		{"valid dev key", []string{"Bearer alice-dev-key"}, 200, "", "", "hello user:alice@example.com\n"},
		{"no credentials", nil, 401, `Bearer realm="capgate"`, "", `{"error":"unauthorized"}` + "\n"},
		{"empty bearer", []string{"Bearer "}, 401, `Bearer realm="capgate"`, "", `{"error":"unauthorized"}` + "\n"},
		{"bad key", []string{"Bearer nope"}, 401, `Bearer realm="capgate", error="invalid_token"`, "", `{"error":"invalid_token"}` + "\n"},
		{"Basic", []string{"Basic YTpi"}, 401, `Bearer realm="capgate", error="invalid_token"`, "", `{"error":"invalid_token"}` + "\n"},
		{"two headers", []string{"Bearer alice-dev-key", "Bearer bob-dev-key"}, 401,
			`Bearer realm="capgate", error="invalid_token"`, "", `{"error":"invalid_token"}` + "\n"},
		{"issuer down", []string{"Bearer " + downToken}, 503, "", "1", `{"error":"temporarily_unavailable"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				p, ok := PrincipalFrom(r.Context())
				if !ok {
					t.Fatal("next called without a principal")
				}
				if r.Header.Get("Authorization") == "" {
					t.Fatal("middleware removed the Authorization header")
				}
				fmt.Fprintf(w, "hello %s\n", p.ID)
			})
			r := httptest.NewRequest("POST", "/a2a/documents", nil)
			for _, v := range tt.headers {
				r.Header.Add("Authorization", v)
			}
			w := httptest.NewRecorder()
			Middleware(a, nil)(next).ServeHTTP(w, r)

			body, _ := io.ReadAll(w.Result().Body)
			if w.Code != tt.wantStatus || string(body) != tt.wantBody {
				t.Fatalf("got %d %q, want %d %q", w.Code, body, tt.wantStatus, tt.wantBody)
			}
			if called != (tt.wantStatus == 200) {
				t.Fatalf("next called = %v with status %d", called, w.Code)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tt.wantChallenge {
				t.Fatalf("WWW-Authenticate = %q, want %q", got, tt.wantChallenge)
			}
			if got := w.Header().Get("Retry-After"); got != tt.wantRetry {
				t.Fatalf("Retry-After = %q, want %q", got, tt.wantRetry)
			}
			if tt.wantStatus != 200 && w.Header().Get("Cache-Control") != "no-store" {
				t.Fatal("error response is cacheable")
			}
		})
	}
}

func TestWriteErrorUnexpected(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, errors.New("boom"))
	if w.Code != 500 || w.Header().Get("WWW-Authenticate") != "" {
		t.Fatalf("got %d, challenge %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	w = httptest.NewRecorder()
	WriteError(w, fmt.Errorf("wrapped: %w", context.Canceled))
	if w.Code != 500 {
		t.Fatalf("got %d", w.Code)
	}
}
