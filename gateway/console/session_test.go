package console

import (
	"net/http"
	"net/http/httptest"
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
// says the console is reached over plain http on loopback. No request is
// consulted: a TLS-terminating proxy may forward a loopback Host.
func TestCookieFlags(t *testing.T) {
	for _, insecure := range []bool{false, true} {
		c := &Console{cfg: Config{InsecureCookies: insecure}}
		w := httptest.NewRecorder()
		c.setCookie(w, sessionCookie, "v", sessionTTL)
		c.clearCookie(w, loginCookie)
		for _, ck := range w.Result().Cookies() {
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure == insecure || ck.Path != "/console/" {
				t.Errorf("insecure %v: cookie %+v", insecure, ck)
			}
		}
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
