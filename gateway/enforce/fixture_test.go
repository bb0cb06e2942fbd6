package enforce_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/revocation"
)

const (
	alice = "user:alice@example.com"
	bob   = "user:bob@example.com"
)

// fixture is a checker over real collaborators: a key set, a verifier on
// an injected clock, an in-memory index and revocation store.
type fixture struct {
	now         time.Time
	keys        *captoken.KeySet
	index       *capindex.Memory
	revocations *revocation.Memory
	checker     *enforce.Checker
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fx := &fixture{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return fx.now }
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	v, err := captoken.NewVerifier(ks, captoken.VerifierConfig{Issuer: "capgate", Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	fx.keys, fx.index = ks, capindex.NewMemory(clock)
	fx.revocations = revocation.NewMemory(revocation.MemoryOptions{Now: clock})
	t.Cleanup(func() { _ = fx.revocations.Close() })
	fx.checker = fx.newChecker(t, fx.index, fx.revocations, v)
	return fx
}

func (fx *fixture) newChecker(t *testing.T, idx capindex.Index, rs revocation.Store, v *captoken.Verifier) *enforce.Checker {
	t.Helper()
	k, err := enforce.New(enforce.Deps{
		Index: idx, Verifier: v, Revocations: rs,
		Fronted: func(target string) bool { return target == "documents" || target == "notes" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// issued is a capability minted by the fixture and stored in its index.
type issued struct {
	claims captoken.Claims
	token  string
}

// issue mints a capability for alice on documents, with two resources,
// and stores it in the index.
func (fx *fixture) issue(t *testing.T, ks *captoken.KeySet) issued {
	t.Helper()
	h1, h2 := captoken.NewHandle(), captoken.NewHandle()
	c := captoken.Claims{
		Issuer: "capgate", Principal: alice, Holder: alice, Audience: "documents",
		CapabilityID: captoken.NewCapabilityID(), Grant: "documents:read", Operations: []string{"retrieve", "search"},
		Handles: []string{h1, h2}, Expiry: captoken.NewNumericDate(fx.now.Add(time.Hour)),
		IssuedAt: captoken.NewNumericDate(fx.now), RevocationID: captoken.NewRevocationID(),
	}
	token, err := captoken.Mint(ks, c, map[string]string{h1: "reports/q1", h2: "reports/q2"})
	if err != nil {
		t.Fatal(err)
	}
	if ks == fx.keys {
		packed, err := captoken.Pack(token)
		if err != nil {
			t.Fatal(err)
		}
		rec := capindex.Record{CapabilityID: c.CapabilityID, Token: packed, Principal: alice, Holder: alice,
			Agent: "documents", Grant: c.Grant, IssuedAt: fx.now, Expires: fx.now.Add(time.Hour)}
		if err := fx.index.Put(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	return issued{claims: c, token: token}
}
