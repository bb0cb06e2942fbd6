package authn

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAuthenticateRequest(t *testing.T) {
	a := newAuthenticator(t, newClock(), nil)
	tests := []struct {
		name       string
		headers    []string // Authorization values, in order
		wantID     string
		wantGroups []string
		wantErr    error
	}{
		{"dev key alice", []string{"Bearer alice-dev-key"}, "user:alice@example.com", []string{"finance"}, nil},
		{"dev key carol", []string{"Bearer carol-dev-key"}, "user:carol@example.com", []string{"hr", "editors"}, nil},
		{"dev key agent", []string{"Bearer summarizer-dev-key"}, "agent:summarizer", nil, nil},
		{"lower-case scheme", []string{"bearer alice-dev-key"}, "user:alice@example.com", []string{"finance"}, nil},
		{"upper-case scheme", []string{"BEARER alice-dev-key"}, "user:alice@example.com", []string{"finance"}, nil},
		{"extra spaces", []string{"Bearer   alice-dev-key  "}, "user:alice@example.com", []string{"finance"}, nil},

		{"no header", nil, "", nil, ErrNoCredentials},
		{"empty header", []string{""}, "", nil, ErrNoCredentials},
		{"empty bearer", []string{"Bearer "}, "", nil, ErrNoCredentials},
		{"bare scheme", []string{"Bearer"}, "", nil, ErrNoCredentials},
		{"wrong dev key", []string{"Bearer mallory-dev-key"}, "", nil, ErrInvalidCredentials},
		{"dev key case changed", []string{"Bearer Alice-dev-key"}, "", nil, ErrInvalidCredentials},
		{"dev key with suffix", []string{"Bearer alice-dev-key2"}, "", nil, ErrInvalidCredentials},
		{"dev key's hash as the key", []string{"Bearer " + HashKey("alice-dev-key")}, "", nil, ErrInvalidCredentials},
		{"Basic scheme", []string{"Basic YWxpY2U6YWxpY2UtZGV2LWtleQ=="}, "", nil, ErrInvalidCredentials},
		{"no scheme", []string{"alice-dev-key"}, "", nil, ErrInvalidCredentials},
		{"scheme prefix", []string{"Bearerx alice-dev-key"}, "", nil, ErrInvalidCredentials},
		{"tab separator", []string{"Bearer\talice-dev-key"}, "", nil, ErrInvalidCredentials},
		{"two tokens", []string{"Bearer alice-dev-key bob-dev-key"}, "", nil, ErrInvalidCredentials},
		{"comma-joined", []string{"Bearer alice-dev-key, Bearer bob-dev-key"}, "", nil, ErrInvalidCredentials},
		{"two headers", []string{"Bearer alice-dev-key", "Bearer bob-dev-key"}, "", nil, ErrInvalidCredentials},
		{"two identical headers", []string{"Bearer alice-dev-key", "Bearer alice-dev-key"}, "", nil, ErrInvalidCredentials},
		{"oversized", []string{"Bearer " + strings.Repeat("k", MaxTokenBytes+1)}, "", nil, ErrInvalidCredentials},
		{"JWE-shaped (five parts)", []string{"Bearer a.b.c.d.e"}, "", nil, ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/a2a/documents", nil)
			for _, v := range tt.headers {
				r.Header.Add("Authorization", v)
			}
			p, err := a.AuthenticateRequest(context.Background(), r)
			checkResult(t, p, err, tt.wantID, tt.wantGroups, tt.wantErr)
			if p != nil && (p.Issuer != DevIssuer || p.Claims != nil) {
				t.Fatalf("dev principal: issuer %q, claims %v", p.Issuer, p.Claims)
			}
		})
	}
}

func TestAuthenticateTokenEmpty(t *testing.T) {
	a := newAuthenticator(t, newClock(), nil)
	if _, err := a.AuthenticateToken(context.Background(), ""); !errors.Is(err, ErrNoCredentials) {
		t.Fatalf("err = %v, want ErrNoCredentials", err)
	}
}

func TestDevPrincipalIsACopy(t *testing.T) {
	a := newAuthenticator(t, newClock(), nil)
	p, err := a.AuthenticateToken(context.Background(), "carol-dev-key")
	if err != nil {
		t.Fatal(err)
	}
	p.ID, p.Groups[0] = "user:root", "admins"
	p2, err := a.AuthenticateToken(context.Background(), "carol-dev-key")
	if err != nil {
		t.Fatal(err)
	}
	if p2.ID != "user:carol@example.com" || p2.Groups[0] != "hr" {
		t.Fatalf("mutating one principal changed the next: %+v", p2)
	}
}

func TestPrincipalContext(t *testing.T) {
	if _, ok := PrincipalFrom(context.Background()); ok {
		t.Fatal("empty context has a principal")
	}
	if _, ok := PrincipalFrom(WithPrincipal(context.Background(), nil)); ok {
		t.Fatal("nil principal reported as present")
	}
	p := &Principal{ID: "agent:x", Groups: []string{"g"}}
	got, ok := PrincipalFrom(WithPrincipal(context.Background(), p))
	if !ok || got != p {
		t.Fatalf("PrincipalFrom = %v, %v", got, ok)
	}
	if !p.HasGroup("g") || p.HasGroup("G") || (*Principal)(nil).HasGroup("g") {
		t.Fatal("HasGroup is wrong")
	}
}
