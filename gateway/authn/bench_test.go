package authn

import (
	"context"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/gateway/authn/oidctest"
)

func BenchmarkAuthenticateDevKey(b *testing.B) {
	a := newAuthenticator(b, newClock(), nil)
	ctx := context.Background()
	for b.Loop() {
		if _, err := a.AuthenticateToken(ctx, "carol-dev-key"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthenticateJWT(b *testing.B) {
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA} {
		b.Run(string(alg), func(b *testing.B) {
			iss := oidctest.NewWithAlgorithm(b, alg)
			clock := newClock()
			a := newAuthenticator(b, clock, []IssuerConfig{{Issuer: iss.URL(), Audience: testAudience}})
			token := iss.Sign(with(iss.Claims(testAudience, clock.Now()),
				"email", "alice@example.com", "groups", []string{"finance"}))
			ctx := context.Background()
			if _, err := a.AuthenticateToken(ctx, token); err != nil { // discovery + JWKS
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.AuthenticateToken(ctx, token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
