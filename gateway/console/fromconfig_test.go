package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestFromConfig: no console section, no console; a session key shorter
// than 32 bytes is refused; two consoles built from one config with the
// shared session key (two replicas) accept each other's sessions; the
// dev-key form is there because dev keys are configured, and the
// configured approver enters.
func TestFromConfig(t *testing.T) {
	au, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey(approverKey), Principal: "user:sec@example.com"},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	revs := revocation.NewMemory(revocation.MemoryOptions{})
	deps := console.Deps{Authenticator: au, Revocations: revs, Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}}
	cfg := &config.Config{AdminAccess: config.AdminAccess{Groups: []string{"capgate-admins"}},
		DevKeys: []authn.DevKey{{Principal: "user:admin@example.com"}}}
	if c, err := console.FromConfig(cfg, deps); c != nil || err != nil {
		t.Fatalf("without a console section: %v %v", c, err)
	}
	cfg.Console = &config.Console{SessionKeyEnv: "CONSOLE_KEY", Approvers: config.AdminAccess{Principals: []string{"user:sec@example.com"}}}
	env := map[string]string{"CONSOLE_KEY": "too short"}
	deps.Getenv = func(k string) string { return env[k] }
	if _, err := console.FromConfig(cfg, deps); err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
		t.Fatalf("a short session key: %v", err)
	}
	env["CONSOLE_KEY"] = strings.Repeat("k", 32)
	var replicas [2]*httptest.Server
	for i := range replicas {
		c, err := console.FromConfig(cfg, deps)
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = httptest.NewServer(c.Handler())
		t.Cleanup(replicas[i].Close)
	}
	b := newBrowser(t, &fixture{srv: replicas[0]})
	if code, _ := b.signIn(approverKey); code != http.StatusOK {
		t.Fatalf("sign-in on the first replica: %d", code)
	}
	b.url = replicas[1].URL // the jar sends the session cookie to any port of 127.0.0.1
	if code, page := b.get("/console/approvals"); code != http.StatusOK || !strings.Contains(page, "No approval store is configured") {
		t.Fatalf("the second replica does not accept the session: %d\n%s", code, page)
	}
}

// TestCookiesSecure: the configured address decides the Secure flag, and
// only a plainly loopback http console goes without it.
func TestCookiesSecure(t *testing.T) {
	admin := func(addr string) *config.Listener { return &config.Listener{Addr: addr} }
	oidc := func(redirect string) *config.ConsoleOIDC { return &config.ConsoleOIDC{RedirectURL: redirect} }
	for _, tc := range []struct {
		name    string
		admin   *config.Listener
		console config.Console
		want    bool
	}{
		{"loopback listener", admin("127.0.0.1:9090"), config.Console{}, false},
		{"ipv6 loopback listener", admin("[::1]:9090"), config.Console{}, false},
		{"localhost listener", admin("localhost:9090"), config.Console{}, false},
		{"every interface", admin("0.0.0.0:9090"), config.Console{}, true},
		{"port only", admin(":9090"), config.Console{}, true},
		{"a LAN address", admin("10.0.0.5:9090"), config.Console{}, true},
		{"loopback listener behind a TLS proxy", admin("127.0.0.1:9090"), config.Console{PublicURL: "https://capgate-admin.example.com"}, true},
		{"public url on loopback http", admin("0.0.0.0:9090"), config.Console{PublicURL: "http://127.0.0.1:9090"}, false},
		{"https redirect url", admin("127.0.0.1:9090"), config.Console{OIDC: oidc("https://capgate-admin.example.com/console/callback")}, true},
		{"public url wins over the redirect url", admin("127.0.0.1:9090"),
			config.Console{PublicURL: "https://a.example.com", OIDC: oidc("http://127.0.0.1:9090/console/callback")}, true},
		{"garbled public url", admin("127.0.0.1:9090"), config.Console{PublicURL: "::"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{Admin: tc.admin, Console: &tc.console}
			if got := console.CookiesSecure(cfg); got != tc.want {
				t.Errorf("CookiesSecure = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSecureCookieBehindProxy: a console whose public URL is https issues
// a Secure session cookie even when the request arrives over http with a
// loopback Host, as a TLS-terminating proxy forwards it.
func TestSecureCookieBehindProxy(t *testing.T) {
	au, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey(adminKey), Principal: "user:admin@example.com", Groups: []string{"capgate-admins"}},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Admin: &config.Listener{Addr: "127.0.0.1:9090"}, AdminAccess: config.AdminAccess{Groups: []string{"capgate-admins"}},
		DevKeys: []authn.DevKey{{Principal: "user:admin@example.com"}}, Console: &config.Console{PublicURL: "https://capgate-admin.example.com"}}
	c, err := console.FromConfig(cfg, console.Deps{Authenticator: au, Revocations: revocation.NewMemory(revocation.MemoryOptions{}),
		Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	c.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9090/console/login", nil))
	cookies := w.Result().Cookies()
	if len(cookies) == 0 {
		t.Fatal("no cookie")
	}
	for _, ck := range cookies {
		if !ck.Secure {
			t.Errorf("cookie %s without Secure behind an https public URL", ck.Name)
		}
	}
}

// TestBaseURL: links to the console (the approval webhook's) use its
// public address, else the OIDC redirect URL's origin, else none.
func TestBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		console *config.Console
		want    string
	}{
		{"no console", nil, ""},
		{"neither address", &config.Console{}, ""},
		{"public url", &config.Console{PublicURL: "https://capgate-admin.example.com/"}, "https://capgate-admin.example.com"},
		{"redirect url's origin", &config.Console{OIDC: &config.ConsoleOIDC{RedirectURL: "https://adm.example.com:8443/console/callback"}}, "https://adm.example.com:8443"},
		{"public url wins", &config.Console{PublicURL: "https://a.example.com", OIDC: &config.ConsoleOIDC{RedirectURL: "https://b.example.com/cb"}}, "https://a.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := console.BaseURL(&config.Config{Console: tc.console}); got != tc.want {
				t.Errorf("BaseURL = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSecureCookieFromTrustedProxy: a console on a loopback listener
// (cookies without Secure for a browser on the same host) sets Secure on
// the cookies of a request that a configured trusted proxy forwards
// saying X-Forwarded-Proto: https, and ignores the header from anyone
// else.
func TestSecureCookieFromTrustedProxy(t *testing.T) {
	au, err := authn.New(context.Background(), nil, nil, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Admin: &config.Listener{Addr: "127.0.0.1:9090"}, AdminAccess: config.AdminAccess{Groups: []string{"capgate-admins"}},
		DevKeys: []authn.DevKey{{Principal: "user:admin@example.com"}}, Console: &config.Console{TrustedProxies: []string{"192.0.2.10"}}}
	c, err := console.FromConfig(cfg, console.Deps{Authenticator: au, Revocations: revocation.NewMemory(revocation.MemoryOptions{}),
		Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, remote, proto string
		want                bool
	}{
		{"browser on the host", "127.0.0.1:50000", "", false},
		{"trusted proxy, https", "192.0.2.10:50000", "https", true},
		{"trusted proxy, http", "192.0.2.10:50000", "http", false},
		{"someone else claiming https", "192.0.2.11:50000", "https", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9090/console/login", nil)
			r.RemoteAddr = tt.remote
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			w := httptest.NewRecorder()
			c.Handler().ServeHTTP(w, r)
			cookies := w.Result().Cookies()
			if len(cookies) == 0 {
				t.Fatal("no cookie")
			}
			for _, ck := range cookies {
				if ck.Secure != tt.want {
					t.Errorf("cookie %s Secure %v, want %v", ck.Name, ck.Secure, tt.want)
				}
			}
		})
	}
	cfg.Console.TrustedProxies = []string{"not-an-address"}
	if _, err := console.FromConfig(cfg, console.Deps{Authenticator: au}); err == nil {
		t.Error("a trusted proxy that is not an address was accepted")
	}
}
