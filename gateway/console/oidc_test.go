package console_test

import (
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/authn/oidctest"
	"github.com/capgate/capgate/gateway/config"
)

// oidcFixture is the console signing in at an in-process issuer. The
// redirect URL is only known once the server runs, so the fixture's
// console is built for a placeholder and the test rewrites the callback.
func oidcFixture(t *testing.T) (*fixture, *oidctest.Issuer) {
	iss := oidctest.New(t)
	f := newFixture(t, fixtureOptions{
		oidc:    &config.ConsoleOIDC{Issuer: iss.URL(), ClientID: "capgate-console", RedirectURL: "http://console.invalid/console/callback"},
		issuers: []authn.IssuerConfig{{Issuer: iss.URL(), Audience: "capgate-console"}},
	})
	return f, iss
}

// signInOIDC follows the real redirects: console → issuer /authorize →
// back to the callback, which the test delivers to the console server.
func signInOIDC(t *testing.T, f *fixture, tamper func(callback string) string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if r.URL.Host == "console.invalid" {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := c.Get(f.srv.URL + "/console/login/oidc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, "http://console.invalid/console/callback?") {
		t.Fatalf("the issuer did not send the browser back: %d %q", resp.StatusCode, loc)
	}
	cb := f.srv.URL + strings.TrimPrefix(loc, "http://console.invalid")
	if tamper != nil {
		cb = tamper(cb)
	}
	resp, err = c.Get(cb)
	if err != nil {
		t.Fatal(err)
	}
	return read(t, resp)
}

func TestOIDCSignIn(t *testing.T) {
	f, iss := oidcFixture(t)
	iss.SignInAs(map[string]any{"email": "ops@example.com", "groups": []string{"capgate-admins"}})
	code, page := signInOIDC(t, f, nil)
	if code != http.StatusOK || !strings.Contains(page, "user:ops@example.com") || !strings.Contains(page, "HR handbook") {
		t.Fatalf("after OIDC sign-in: %d\n%s", code, page)
	}
}

func TestOIDCSignInRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claims map[string]any
		tamper func(string) string
		want   int
	}{
		{"not an operator", map[string]any{"email": "eve@example.com", "groups": []string{"finance"}}, nil, http.StatusForbidden},
		{"state swapped", map[string]any{"email": "ops@example.com", "groups": []string{"capgate-admins"}},
			func(cb string) string { return strings.Replace(cb, "state=", "state=x", 1) }, http.StatusUnauthorized},
		{"code replayed or forged", map[string]any{"email": "ops@example.com", "groups": []string{"capgate-admins"}},
			func(cb string) string { return strings.Replace(cb, "code=", "code=x", 1) }, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, iss := oidcFixture(t)
			iss.SignInAs(tc.claims)
			if code, page := signInOIDC(t, f, tc.tamper); code != tc.want {
				t.Errorf("status %d, want %d\n%s", code, tc.want, page)
			}
		})
	}
}
