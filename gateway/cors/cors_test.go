package cors_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/cors"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     cors.Config
		wantErr error
	}{
		{"off", cors.Config{}, nil},
		{"origins", cors.Config{AllowedOrigins: []string{"https://app.example", "http://localhost:5173"}, AllowCredentials: true}, nil},
		{"star without credentials", cors.Config{AllowedOrigins: []string{"*"}}, nil},
		{"star with credentials", cors.Config{AllowedOrigins: []string{"*"}, AllowCredentials: true}, cors.ErrWildcardWithCredentials},
		{"star among others with credentials", cors.Config{AllowedOrigins: []string{"https://a.example", "*"}, AllowCredentials: true}, cors.ErrWildcardWithCredentials},
		{"path", cors.Config{AllowedOrigins: []string{"https://app.example/"}}, cors.ErrInvalidOrigin},
		{"query", cors.Config{AllowedOrigins: []string{"https://app.example?x"}}, cors.ErrInvalidOrigin},
		{"empty query", cors.Config{AllowedOrigins: []string{"https://app.example?"}}, cors.ErrInvalidOrigin},
		{"user", cors.Config{AllowedOrigins: []string{"https://u@app.example"}}, cors.ErrInvalidOrigin},
		{"scheme", cors.Config{AllowedOrigins: []string{"ftp://app.example"}}, cors.ErrInvalidOrigin},
		{"no scheme", cors.Config{AllowedOrigins: []string{"app.example"}}, cors.ErrInvalidOrigin},
		{"wildcard subdomain", cors.Config{AllowedOrigins: []string{"https://*.example"}}, cors.ErrInvalidOrigin},
		{"empty", cors.Config{AllowedOrigins: []string{""}}, cors.ErrInvalidOrigin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Validate() = %v, want %v", err, tt.wantErr)
			}
			if _, nerr := cors.New(tt.cfg); (nerr == nil) != (err == nil) {
				t.Fatalf("New() = %v, Validate() = %v", nerr, err)
			}
		})
	}
	if err := (cors.Config{MaxAge: -time.Second}).Validate(); err == nil {
		t.Error("negative max age accepted")
	}
}

// recorder is a real upstream behind a reverse proxy: it records the
// method of every request that reaches it.
type recorder struct {
	mu      sync.Mutex
	methods []string
}

func (rec *recorder) seen() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.methods)
}

// gateway returns a server whose handler is the CORS middleware in front
// of a reverse proxy to a recording upstream, as the A2A front forwards.
func gateway(t *testing.T, cfg cors.Config) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.methods = append(rec.methods, r.Method)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	mw, err := cors.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw(httputil.NewSingleHostReverseProxy(u)))
	t.Cleanup(srv.Close)
	return srv, rec
}

func preflight(t *testing.T, srv *httptest.Server, origin, headers string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/a2a/documents/", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	req.Header.Set("Access-Control-Request-Headers", headers)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// sdkHeaders is what a browser asks for before an A2A call from the SDK
// with a capability and trace context: lower case, sorted.
const sdkHeaders = "a2a-capability,a2a-extensions,a2a-version,authorization,content-type,traceparent"

func TestPreflightAllowedOrigin(t *testing.T) {
	srv, rec := gateway(t, cors.Config{AllowedOrigins: []string{"https://app.example"}, MaxAge: 10 * time.Minute})
	resp := preflight(t, srv, "https://app.example", sdkHeaders)
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status = %d, want 204", resp.StatusCode)
	}
	h := resp.Header
	if got := h.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Errorf("Access-Control-Allow-Origin = %q", got)
	}
	if got := h.Get("Access-Control-Allow-Methods"); got != http.MethodPost {
		t.Errorf("Access-Control-Allow-Methods = %q, want POST", got)
	}
	if got := h.Get("Access-Control-Allow-Headers"); got != sdkHeaders {
		t.Errorf("Access-Control-Allow-Headers = %q, want %q", got, sdkHeaders)
	}
	if got := h.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Errorf("credentials allowed without being configured: %q", got)
	}
	if got := h.Get("Access-Control-Max-Age"); got != "600" {
		t.Errorf("Access-Control-Max-Age = %q, want 600", got)
	}
	if seen := rec.seen(); len(seen) != 0 {
		t.Errorf("upstream saw %v, want nothing: a preflight is never forwarded", seen)
	}
}

func TestPreflightRefused(t *testing.T) {
	tests := []struct {
		name, origin, headers string
	}{
		{"disallowed origin", "https://evil.example", sdkHeaders},
		{"origin differing in port", "https://app.example:8443", sdkHeaders},
		{"header not allowed", "https://app.example", "authorization,x-forwarded-for"},
		{"trusted capability header", "https://app.example", "a2a-capability-principal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := gateway(t, cors.Config{AllowedOrigins: []string{"https://app.example"}})
			resp := preflight(t, srv, tt.origin, tt.headers)
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-Allow-") {
					t.Errorf("refused preflight carries %s: %q", k, resp.Header.Get(k))
				}
			}
			if seen := rec.seen(); len(seen) != 0 {
				t.Errorf("upstream saw %v, want nothing", seen)
			}
		})
	}
}

func TestCrossOriginCall(t *testing.T) {
	srv, rec := gateway(t, cors.Config{AllowedOrigins: []string{"*"}})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/a2a/documents/", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://anywhere.example")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
	}
	if got := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Www-Authenticate") {
		t.Errorf("Access-Control-Expose-Headers = %q, want WWW-Authenticate exposed", got)
	}
	if seen := rec.seen(); !slices.Equal(seen, []string{http.MethodPost}) {
		t.Errorf("upstream saw %v, want the one POST", seen)
	}
}

// TestOffByDefault: with no origins the middleware adds nothing; what
// answers an OPTIONS is then the router behind it.
func TestOffByDefault(t *testing.T) {
	mw, err := cors.New(cors.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := preflightTo(mw, "https://app.example")
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("off: status %d, headers %v", w.Code, w.Header())
	}
}

// TestMiddlewareFailsClosed: an invalid config never lets an origin in.
func TestMiddlewareFailsClosed(t *testing.T) {
	mw := cors.Middleware(cors.Config{AllowedOrigins: []string{"*"}, AllowCredentials: true})
	w := preflightTo(mw, "https://evil.example")
	if got := w.Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("invalid config let %q in", got)
	}
}

// preflightTo sends a preflight from origin through mw to a router that,
// like the gateway's, answers OPTIONS with 405.
func preflightTo(mw func(http.Handler) http.Handler, origin string) *httptest.ResponseRecorder {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) })
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodOptions, "/a2a/documents/", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	mw(next).ServeHTTP(w, req)
	return w
}
