package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn/oidctest"
)

func TestIssuerDownAtFirstUseThenUp(t *testing.T) {
	iss := oidctest.New(t)
	iss.SetAvailable(false)
	clock := newClock()
	// New succeeds with the issuer down: it does no I/O.
	a := newAuthenticator(t, clock, []IssuerConfig{{Issuer: iss.URL(), Audience: testAudience}})
	token := iss.Sign(with(iss.Claims(testAudience, clock.Now()), "email", "alice@example.com"))

	p, err := a.AuthenticateToken(context.Background(), token)
	if !errors.Is(err, ErrIssuerUnavailable) || errors.Is(err, ErrInvalidCredentials) || p != nil {
		t.Fatalf("issuer down: p=%v err=%v, want ErrIssuerUnavailable only", p, err)
	}

	iss.SetAvailable(true)
	// Within the retry interval the failure is remembered, not retried.
	if _, err := a.AuthenticateToken(context.Background(), token); !errors.Is(err, ErrIssuerUnavailable) {
		t.Fatalf("within retry interval: err = %v", err)
	}
	if n := iss.DiscoveryRequests(); n != 0 {
		t.Fatalf("discovery retried %d times within the retry interval", n)
	}

	clock.Advance(2 * time.Second)
	p, err = a.AuthenticateToken(context.Background(), token)
	checkResult(t, p, err, "user:alice@example.com", nil, nil)
}

func TestDiscoveryIsSharedAndCached(t *testing.T) {
	f := newFixture(t, nil)
	token := f.iss.Sign(f.userClaims())
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			_, err := f.a.AuthenticateToken(context.Background(), token)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := f.iss.DiscoveryRequests(); n != 1 {
		t.Fatalf("discovery requests = %d, want 1", n)
	}
}

func TestKeyRotation(t *testing.T) {
	f := newFixture(t, nil)
	old := f.iss.Sign(f.userClaims())
	if _, err := f.a.AuthenticateToken(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	f.iss.Rotate()
	fresh := f.iss.Sign(f.userClaims())
	for name, tok := range map[string]string{"new key": fresh, "old key": old} {
		if _, err := f.a.AuthenticateToken(context.Background(), tok); err != nil {
			t.Fatalf("%s after rotation: %v", name, err)
		}
	}
	if n := f.iss.JWKSRequests(); n != 2 {
		t.Fatalf("JWKS requests = %d, want 2 (first use, then the new kid)", n)
	}
}

func TestJWKSDownIsUnavailableNotInvalid(t *testing.T) {
	f := newFixture(t, nil)
	old := f.iss.Sign(f.userClaims())
	if _, err := f.a.AuthenticateToken(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	f.iss.Rotate()
	fresh := f.iss.Sign(f.userClaims())
	f.iss.SetAvailable(false)

	// A cached key still verifies while the JWKS is down.
	if _, err := f.a.AuthenticateToken(context.Background(), old); err != nil {
		t.Fatalf("cached key with JWKS down: %v", err)
	}
	// A new kid needs a fetch that fails: a technical failure, not a verdict.
	_, err := f.a.AuthenticateToken(context.Background(), fresh)
	if !errors.Is(err, ErrIssuerUnavailable) || errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("new kid with JWKS down: err = %v, want ErrIssuerUnavailable only", err)
	}
	f.iss.SetAvailable(true)
	// go-oidc publishes a fetch's result before it frees the fetch slot, so
	// a call in that window may still get the failed fetch's error: the
	// issuer counts as recovered once a later attempt succeeds.
	var err2 error
	for range 200 {
		if _, err2 = f.a.AuthenticateToken(context.Background(), fresh); err2 == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("after JWKS recovered: %v", err2)
}

func TestIssuerUnreachable(t *testing.T) {
	iss := oidctest.New(t)
	clock := newClock()
	a := newAuthenticator(t, clock, []IssuerConfig{{Issuer: "http://127.0.0.1:1", Audience: testAudience}})
	claims := with(iss.Claims(testAudience, clock.Now()), "iss", "http://127.0.0.1:1", "email", "a@b")
	_, err := a.AuthenticateToken(context.Background(), iss.Sign(claims))
	if !errors.Is(err, ErrIssuerUnavailable) {
		t.Fatalf("err = %v, want ErrIssuerUnavailable", err)
	}
}

func TestRefuseInsecureRedirect(t *testing.T) {
	tests := []struct {
		name    string
		target  string
		via     int
		wantErr bool
	}{
		{"https", "https://idp.example.com/jwks", 1, false},
		{"https with query", "https://idp.example.com/keys?p=b2c", 1, false},
		{"loopback http", "http://127.0.0.1:8080/jwks", 1, false},
		{"downgrade to http", "http://idp.example.com/jwks", 1, true},
		{"file scheme", "file:///etc/passwd", 1, true},
		{"too many redirects", "https://idp.example.com/jwks", 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.target, nil)
			err := refuseInsecureRedirect(req, make([]*http.Request, tt.via))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestInsecureJWKSURIRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":"http://%s","jwks_uri":"http://keys.example.com/jwks"}`, r.Host)
	}))
	t.Cleanup(srv.Close)
	iss := oidctest.New(t)
	clock := newClock()
	a := newAuthenticator(t, clock, []IssuerConfig{{Issuer: srv.URL, Audience: testAudience}})
	claims := with(iss.Claims(testAudience, clock.Now()), "iss", srv.URL, "email", "a@b")
	_, err := a.AuthenticateToken(context.Background(), iss.Sign(claims))
	if !errors.Is(err, ErrIssuerUnavailable) || !strings.Contains(err.Error(), "jwks_uri") {
		t.Fatalf("err = %v, want ErrIssuerUnavailable for the jwks_uri", err)
	}
}
