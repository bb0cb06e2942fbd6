package authn

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/gateway/authn/oidctest"
)

func TestAuthenticateTokenOIDC(t *testing.T) {
	f := newFixture(t, nil)
	other := oidctest.New(t) // a real issuer capgate does not trust
	now := f.clock.Now()
	tests := []struct {
		name       string
		token      func() string
		wantID     string
		wantGroups []string
		wantErr    error
	}{
		{"valid user with groups", func() string { return f.iss.Sign(f.userClaims()) },
			"user:alice@example.com", []string{"finance", "eng"}, nil},
		{"groups as one string", func() string { return f.iss.Sign(with(f.userClaims(), "groups", "finance")) },
			"user:alice@example.com", []string{"finance"}, nil},
		{"no groups claim", func() string { return f.iss.Sign(with(f.userClaims(), "groups", nil)) },
			"user:alice@example.com", nil, nil},
		{"agent via azp", func() string {
			return f.iss.Sign(with(f.userClaims(), "email", nil, "groups", nil, "azp", "summarizer"))
		}, "agent:summarizer", nil, nil},
		{"audience in an array", func() string {
			return f.iss.Sign(with(f.userClaims(), "aud", []string{"other", testAudience}))
		}, "user:alice@example.com", []string{"finance", "eng"}, nil},
		{"nbf within go-oidc's 5 min skew", func() string {
			return f.iss.Sign(with(f.userClaims(), "nbf", now.Add(time.Minute).Unix()))
		}, "user:alice@example.com", []string{"finance", "eng"}, nil},

		{"expired", func() string { return f.iss.Sign(with(f.userClaims(), "exp", now.Add(-time.Second).Unix())) },
			"", nil, ErrTokenExpired},
		{"no exp", func() string { return f.iss.Sign(with(f.userClaims(), "exp", nil)) },
			"", nil, ErrInvalidCredentials},
		{"not yet valid", func() string {
			return f.iss.Sign(with(f.userClaims(), "nbf", now.Add(10*time.Minute).Unix()))
		}, "", nil, ErrInvalidCredentials},
		{"wrong audience", func() string { return f.iss.Sign(with(f.userClaims(), "aud", "someone-else")) },
			"", nil, ErrInvalidCredentials},
		{"no audience", func() string { return f.iss.Sign(with(f.userClaims(), "aud", nil)) },
			"", nil, ErrInvalidCredentials},
		{"trusted iss signed by another issuer", func() string { return other.Sign(f.userClaims()) },
			"", nil, ErrInvalidCredentials},
		{"unknown issuer", func() string { return other.Sign(with(f.userClaims(), "iss", other.URL())) },
			"", nil, ErrUnknownIssuer},
		{"issuer with trailing slash", func() string { return f.iss.Sign(with(f.userClaims(), "iss", f.iss.URL()+"/")) },
			"", nil, ErrUnknownIssuer},
		{"no iss", func() string { return f.iss.Sign(with(f.userClaims(), "iss", nil)) },
			"", nil, ErrInvalidCredentials},
		{"iss not a string", func() string { return f.iss.Sign(with(f.userClaims(), "iss", 42)) },
			"", nil, ErrInvalidCredentials},
		{"HS256 keyed with the public key", func() string { return f.iss.SignHS256WithPublicKey(f.userClaims()) },
			"", nil, ErrInvalidCredentials},
		{"alg none", func() string { return f.iss.Unsigned("none", f.userClaims()) }, "", nil, ErrInvalidCredentials},
		{"alg None", func() string { return f.iss.Unsigned("None", f.userClaims()) }, "", nil, ErrInvalidCredentials},
		{"alg NONE", func() string { return f.iss.Unsigned("NONE", f.userClaims()) }, "", nil, ErrInvalidCredentials},
		{"alg nOnE with a copied signature", func() string {
			good := f.iss.Sign(f.userClaims())
			return strings.TrimSuffix(f.iss.Unsigned("nOnE", f.userClaims()), ".") + "." + strings.Split(good, ".")[2]
		}, "", nil, ErrInvalidCredentials},
		{"embedded jwk signs the token", func() string { return f.iss.SignWithEmbeddedJWK(f.userClaims()) },
			"", nil, ErrInvalidCredentials},
		{"unknown kid", func() string {
			k := oidctest.GenerateKey(t, jose.RS256, "no-such-kid")
			return f.iss.SignWith(jose.RS256, k, nil, f.userClaims())
		}, "", nil, ErrInvalidCredentials},
		{"unknown key under the real kid", func() string { return f.iss.SignWithUnknownKey(f.userClaims()) },
			"", nil, ErrInvalidCredentials},
		{"alg not allowed (RS512)", func() string {
			k := oidctest.GenerateKey(t, jose.RS256, f.iss.KeyID())
			return f.iss.SignWith(jose.RS512, k, nil, f.userClaims())
		}, "", nil, ErrInvalidCredentials},
		{"payload tampered", func() string {
			good := f.iss.Sign(with(f.userClaims(), "email", "bob@example.com"))
			return f.iss.Tamper(good, f.userClaims())
		}, "", nil, ErrInvalidCredentials},
		{"signature stripped", func() string {
			good := f.iss.Sign(f.userClaims())
			return good[:strings.LastIndex(good, ".")+1]
		}, "", nil, ErrInvalidCredentials},
		{"neither user nor agent claim", func() string {
			return f.iss.Sign(with(f.userClaims(), "email", nil))
		}, "", nil, ErrInvalidCredentials},
		{"email not a string", func() string { return f.iss.Sign(with(f.userClaims(), "email", []string{"a@b"})) },
			"", nil, ErrInvalidCredentials},
		{"email with a newline", func() string { return f.iss.Sign(with(f.userClaims(), "email", "a@b\nuser:root")) },
			"", nil, ErrInvalidCredentials},
		{"groups of the wrong shape", func() string { return f.iss.Sign(with(f.userClaims(), "groups", []any{"finance", 7})) },
			"", nil, ErrInvalidCredentials},
		{"groups an object", func() string { return f.iss.Sign(with(f.userClaims(), "groups", map[string]any{"a": 1})) },
			"", nil, ErrInvalidCredentials},
		{"oversized token", func() string {
			return f.iss.Sign(with(f.userClaims(), "pad", strings.Repeat("x", MaxTokenBytes)))
		}, "", nil, ErrInvalidCredentials},
		{"garbage with two dots", func() string { return "a.b.c" }, "", nil, ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := f.a.AuthenticateToken(context.Background(), tt.token())
			checkResult(t, p, err, tt.wantID, tt.wantGroups, tt.wantErr)
		})
	}
}

// checkResult asserts the outcome of an authentication.
func checkResult(t *testing.T, p *Principal, err error, wantID string, wantGroups []string, wantErr error) {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("err = %v, want %v", err, wantErr)
		}
		if p != nil {
			t.Fatalf("principal %+v returned with an error", p)
		}
		t.Logf("refused: %v", err)
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if p.ID != wantID || !slices.Equal(p.Groups, wantGroups) {
		t.Fatalf("principal = %q %q, want %q %q", p.ID, p.Groups, wantID, wantGroups)
	}
}

func TestEmailVerified(t *testing.T) {
	f := newFixture(t, func(c *IssuerConfig) { c.RequireEmailVerified = true })
	tests := []struct {
		name    string
		claim   any
		wantID  string
		wantErr error
	}{
		{"true", true, "user:alice@example.com", nil},
		{"string true", "true", "user:alice@example.com", nil},
		{"false", false, "", ErrInvalidCredentials},
		{"string false", "false", "", ErrInvalidCredentials},
		{"missing", nil, "", ErrInvalidCredentials},
		{"number", 1, "", ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// An unverified email never falls back to the agent claim.
			claims := with(f.userClaims(), "email_verified", tt.claim, "groups", nil, "azp", "some-client")
			p, err := f.a.AuthenticateToken(context.Background(), f.iss.Sign(claims))
			checkResult(t, p, err, tt.wantID, nil, tt.wantErr)
		})
	}
}

func TestCustomClaims(t *testing.T) {
	f := newFixture(t, func(c *IssuerConfig) {
		c.UserClaim, c.AgentClaim, c.GroupsClaim = "preferred_username", "client_id", "roles"
	})
	claims := with(f.userClaims(), "preferred_username", "alice", "roles", []string{"admin"})
	p, err := f.a.AuthenticateToken(context.Background(), f.iss.Sign(claims))
	checkResult(t, p, err, "user:alice", []string{"admin"}, nil)
	if p.Issuer != f.iss.URL() || p.Claims["email"] != "alice@example.com" {
		t.Fatalf("issuer %q, raw claims %v", p.Issuer, p.Claims)
	}

	agent := with(f.userClaims(), "email", nil, "groups", nil, "client_id", "indexer")
	p, err = f.a.AuthenticateToken(context.Background(), f.iss.Sign(agent))
	checkResult(t, p, err, "agent:indexer", nil, nil)
}

func TestIssuerAlgorithmList(t *testing.T) {
	// The issuer signs RS256, but this issuer config allows only ES256; a
	// second issuer allowing RS256 must not widen the first one's list.
	clock := newClock()
	rsa, ec := oidctest.New(t), oidctest.NewWithAlgorithm(t, jose.ES256)
	a := newAuthenticator(t, clock, []IssuerConfig{
		{Issuer: rsa.URL(), Audience: testAudience, Algorithms: []string{"ES256"}},
		{Issuer: ec.URL(), Audience: testAudience, Algorithms: []string{"RS256", "ES256"}},
	})
	claims := func(iss *oidctest.Issuer) map[string]any {
		return with(iss.Claims(testAudience, clock.Now()), "email", "alice@example.com")
	}
	_, err := a.AuthenticateToken(context.Background(), rsa.Sign(claims(rsa)))
	if !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("RS256 token for an ES256-only issuer: err = %v", err)
	}
	p, err := a.AuthenticateToken(context.Background(), ec.Sign(claims(ec)))
	checkResult(t, p, err, "user:alice@example.com", nil, nil)
	// ec's iss, signed by rsa's key and kid: routed to ec, refused there.
	_, err = a.AuthenticateToken(context.Background(), rsa.Sign(claims(ec)))
	if !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("cross-issuer token: err = %v", err)
	}
}

func TestEdDSAIssuer(t *testing.T) {
	clock := newClock()
	iss := oidctest.NewWithAlgorithm(t, jose.EdDSA)
	a := newAuthenticator(t, clock, []IssuerConfig{{Issuer: iss.URL(), Audience: testAudience}})
	claims := with(iss.Claims(testAudience, clock.Now()), "azp", "planner")
	p, err := a.AuthenticateToken(context.Background(), iss.Sign(claims))
	checkResult(t, p, err, "agent:planner", nil, nil)
}

func TestNoIssuersConfigured(t *testing.T) {
	f := newFixture(t, nil)
	a := newAuthenticator(t, f.clock, nil)
	_, err := a.AuthenticateToken(context.Background(), f.iss.Sign(f.userClaims()))
	if !errors.Is(err, ErrUnknownIssuer) || !errors.Is(err, ErrInvalidCredentials) {
		t.Fatalf("err = %v, want ErrUnknownIssuer", err)
	}
}
