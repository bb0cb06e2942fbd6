package enforce_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// frozenChecker is the fixture's checker with a freeze list.
func (fx *fixture) frozenChecker(t *testing.T, set *freeze.Set) *enforce.Checker {
	t.Helper()
	v, err := captoken.NewVerifier(fx.keys, captoken.VerifierConfig{Issuer: "capgate",
		Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Now: func() time.Time { return fx.now }})
	if err != nil {
		t.Fatal(err)
	}
	k, err := enforce.New(enforce.Deps{
		Index: fx.index, Verifier: v, Revocations: fx.revocations, Frozen: set,
		Fronted: func(target string) bool { return target == "documents" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestDecideFrozen: a capability whose agent, principal or holder is
// frozen, or presented by a frozen caller, is refused as revoked with
// detail "frozen", even before anything was revoked; an unfreeze lets it
// through again.
func TestDecideFrozen(t *testing.T) {
	tests := []struct {
		name   string
		kind   freeze.Kind
		frozen string
	}{
		{"agent", freeze.Agent, "documents"},
		{"principal", freeze.Principal, alice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newFixture(t)
			set := freeze.New(ctx, freeze.Options{Runtime: platform.Runtime{Now: func() time.Time { return fx.now }}})
			k := fx.frozenChecker(t, set)
			c := fx.issue(t, fx.keys)
			q := enforce.Request{Holder: alice, Audience: "documents", CapabilityID: c.claims.CapabilityID, Operation: "search"}
			if _, _, r := k.Decide(ctx, q); r != nil {
				t.Fatalf("before the freeze: %v", r)
			}
			if _, err := set.Freeze(ctx, tt.kind, tt.frozen, "admin", "incident 7"); err != nil {
				t.Fatal(err)
			}
			_, _, r := k.Decide(ctx, q)
			if !errors.Is(r, &enforce.Refusal{Reason: enforce.CapabilityRevoked}) || r.Data["detail"] != "frozen" {
				t.Fatalf("frozen: %v %v", r, r.Members())
			}
			if _, err := set.Unfreeze(ctx, tt.kind, tt.frozen, "admin", "resolved"); err != nil {
				t.Fatal(err)
			}
			if _, _, r := k.Decide(ctx, q); r != nil {
				t.Fatalf("after the unfreeze: %v", r)
			}
		})
	}
}

// TestDecideFreezeListDown: a freeze list that cannot answer refuses,
// naming itself.
func TestDecideFreezeListDown(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	srv := redistest.Start(t)
	client := srv.NewClient(&redis.Options{MaxRetries: -1})
	srv.Kill()
	set := freeze.New(ctx, freeze.Options{Runtime: platform.Runtime{
		Redis: &platform.Redis{Client: client, Prefix: "t:", Timeout: 100 * time.Millisecond}}})
	t.Cleanup(func() { _ = set.Close() })
	c := fx.issue(t, fx.keys)
	_, _, r := fx.frozenChecker(t, set).Decide(ctx, enforce.Request{Holder: alice, Audience: "documents", CapabilityID: c.claims.CapabilityID})
	if !errors.Is(r, &enforce.Refusal{Reason: enforce.RevocationUnavailable}) || r.Data["detail"] != string(enforce.FreezeList) {
		t.Fatalf("got %v", r)
	}
}
