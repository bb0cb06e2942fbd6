package authn

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/authn/oidctest"
)

// FuzzAuthenticateToken checks that no input panics, that every failure is
// one of the package's sentinels, and that nothing authenticates except the
// seeded dev key and tokens carrying the seeded JWT's exact signed header
// and payload (base64 admits a few spellings of the same bytes).
func FuzzAuthenticateToken(f *testing.F) {
	iss := oidctest.New(f)
	clock := newClock()
	a := newAuthenticator(f, clock, []IssuerConfig{{Issuer: iss.URL(), Audience: testAudience}})
	claims := with(iss.Claims(testAudience, clock.Now()), "email", "alice@example.com", "groups", []string{"finance"})
	good := iss.Sign(claims)
	goodParts := strings.Split(good, ".")

	for _, seed := range []string{
		good, "alice-dev-key", "", "a.b.c", "..", "Bearer x",
		iss.Unsigned("none", claims), iss.SignHS256WithPublicKey(claims),
		iss.Tamper(good, with(claims, "email", "root@example.com")),
		goodParts[0] + "." + goodParts[1] + ".", "{\"payload\":\"\"}.x.y",
		strings.Repeat("a.", 3000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		p, err := a.AuthenticateToken(context.Background(), token)
		if err != nil {
			if p != nil {
				t.Fatalf("principal with error %v", err)
			}
			if !errors.Is(err, ErrNoCredentials) && !errors.Is(err, ErrInvalidCredentials) &&
				!errors.Is(err, ErrIssuerUnavailable) {
				t.Fatalf("error outside the sentinels: %v", err)
			}
			return
		}
		if token == "alice-dev-key" {
			return
		}
		parts := strings.Split(token, ".")
		if len(parts) != 3 || !sameSegment(parts[0], goodParts[0]) || !sameSegment(parts[1], goodParts[1]) {
			t.Fatalf("authenticated %q as %q", token, p.ID)
		}
	})
}

func sameSegment(a, b string) bool {
	da, errA := base64.RawURLEncoding.DecodeString(a)
	db, errB := base64.RawURLEncoding.DecodeString(b)
	return errA == nil && errB == nil && bytes.Equal(da, db)
}
