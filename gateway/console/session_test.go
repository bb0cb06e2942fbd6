package console

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:9090": true, "localhost:9090": true, "[::1]:9090": true, "localhost": true,
		"console.example.com": false, "10.0.0.1:9090": false, "127.0.0.1.example.com": false,
	} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestCookieFlags: HttpOnly and SameSite always; Secure unless the config
// says the console is reached over plain http on loopback, and then still
// Secure for a request straight from a trusted proxy whose
// X-Forwarded-Proto says https. The Host header plays no part, the header
// from anyone else is ignored, and no header takes Secure away.
func TestCookieFlags(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fe80::1/128")}
	tests := []struct {
		name     string
		insecure bool
		proxies  []netip.Prefix
		remote   string
		proto    []string
		want     bool
	}{
		{"secure config", false, nil, "192.0.2.1:1234", nil, true},
		{"secure config, proxy says http", false, proxies, "10.1.2.3:1234", []string{"http"}, true},
		{"loopback http", true, nil, "127.0.0.1:1234", nil, false},
		{"loopback http, no proxies trusted", true, nil, "10.1.2.3:1234", []string{"https"}, false},
		{"trusted proxy says https", true, proxies, "10.1.2.3:1234", []string{"https"}, true},
		{"trusted proxy over IPv6", true, proxies, "[::1]:1234", []string{"HTTPS"}, true},
		{"trusted proxy on a link-local zone", true, proxies, "[fe80::1%eth0]:1234", []string{"https"}, true},
		{"trusted proxy, https in a list", true, proxies, "10.1.2.3:1234", []string{"http, https"}, true},
		{"trusted proxy says http", true, proxies, "10.1.2.3:1234", []string{"http"}, false},
		{"trusted proxy says nothing", true, proxies, "10.1.2.3:1234", nil, false},
		{"untrusted peer says https", true, proxies, "192.0.2.1:1234", []string{"https"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Console{cfg: Config{InsecureCookies: tt.insecure, TrustedProxies: tt.proxies}}
			r := httptest.NewRequest(http.MethodGet, "http://localhost:9090/console/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.proto {
				r.Header.Add("X-Forwarded-Proto", v)
			}
			w := httptest.NewRecorder()
			c.setCookie(w, r, sessionCookie, "v", sessionTTL)
			c.clearCookie(w, r, loginCookie)
			for _, ck := range w.Result().Cookies() {
				if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure != tt.want || ck.Path != "/console/" {
					t.Errorf("cookie %+v, want Secure %v", ck, tt.want)
				}
			}
		})
	}
}

// TestSealedCookieBoundToName: a value sealed for one cookie does not open
// as another, and a flipped byte does not open at all.
func TestSealedCookieBoundToName(t *testing.T) {
	s, err := newSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.seal(loginCookie, pending{Nonce: "n", Expires: 1})
	if err != nil {
		t.Fatal(err)
	}
	req := func(name, value string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/console/", nil)
		r.AddCookie(&http.Cookie{Name: name, Value: value})
		return r
	}
	var p pending
	if err := s.open(req(loginCookie, v), loginCookie, &p); err != nil || p.Nonce != "n" {
		t.Fatalf("open: %v %+v", err, p)
	}
	var sess session
	if err := s.open(req(sessionCookie, v), sessionCookie, &sess); err == nil {
		t.Error("a login cookie opened as a session")
	}
	flipped := []byte(v)
	flipped[len(flipped)/2] ^= 1
	if err := s.open(req(loginCookie, string(flipped)), loginCookie, &p); err == nil {
		t.Error("a tampered cookie opened")
	}
	if _, err := newSealer(make([]byte, 31)); err == nil {
		t.Error("a short session key was accepted")
	}
}

// FuzzOpenCookie: no cookie value opens without the key, and none panics.
func FuzzOpenCookie(f *testing.F) {
	s, err := newSealer(make([]byte, 32))
	if err != nil {
		f.Fatal(err)
	}
	v, _ := s.seal(sessionCookie, session{Principal: "user:a", SID: "x", Expires: 1})
	f.Add(v)
	f.Add("")
	f.Add("AAAA")
	other, _ := newSealer(append(make([]byte, 31), 1))
	f.Fuzz(func(t *testing.T, value string) {
		r := httptest.NewRequest(http.MethodGet, "/console/", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: value})
		var got session
		if err := other.open(r, sessionCookie, &got); err == nil {
			t.Fatalf("a cookie sealed under another key opened: %q", value)
		}
		_ = s.open(r, sessionCookie, &got)
	})
}
