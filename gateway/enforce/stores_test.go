package enforce_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
)

// TestUnavailableNamesItsStore: the refusal of every store keeps the
// stable reason, names that store in its message and data.detail, and no
// other store anywhere.
func TestUnavailableNamesItsStore(t *testing.T) {
	for _, s := range enforce.Stores() {
		r := enforce.Unavailable(s, "")
		m := r.Members()
		if r.Reason != enforce.RevocationUnavailable || m["reason"] != "revocation_unavailable" {
			t.Errorf("%s: reason %q, want the stable revocation_unavailable", s, r.Reason)
		}
		if m["detail"] != string(s) || !strings.HasPrefix(r.Message, s.Noun()+" unavailable") {
			t.Errorf("%s: message %q, detail %v: the store is not named", s, r.Message, m["detail"])
		}
		for _, other := range enforce.Stores() {
			if other != s && strings.Contains(r.Message, other.Noun()) {
				t.Errorf("%s: message %q names %s too", s, r.Message, other)
			}
		}
	}
	if r := enforce.Unavailable(enforce.RevocationStore, "the capability was NOT revoked"); r.Message != "revocation store unavailable; the capability was NOT revoked" {
		t.Errorf("message with an outcome: %q", r.Message)
	}
}

// TestCheckerNamesTheStoreThatFailed: the checker's refusals name the
// store that could not answer, the index when a capability is looked up
// by id, the revocation store when it is checked.
func TestCheckerNamesTheStoreThatFailed(t *testing.T) {
	fx := newFixture(t)
	cap1 := fx.issue(t, fx.keys)
	v, err := captoken.NewVerifier(fx.keys, captoken.VerifierConfig{Issuer: "capgate", Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, Now: func() time.Time { return fx.now }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k    *enforce.Checker
		q    enforce.Request
		want enforce.Store
	}{
		{"revocation store down", fx.newChecker(t, fx.index, failingStore{}, v),
			enforce.Request{Holder: alice, Audience: "documents", CapabilityID: cap1.claims.CapabilityID}, enforce.RevocationStore},
		{"index down", fx.newChecker(t, failingIndex{}, fx.revocations, v),
			enforce.Request{Holder: alice, Audience: "documents", CapabilityID: cap1.claims.CapabilityID}, enforce.CapabilityIndex},
		{"both down, looked up by id", fx.newChecker(t, failingIndex{}, failingStore{}, v),
			enforce.Request{Holder: alice, Audience: "documents", CapabilityID: cap1.claims.CapabilityID}, enforce.CapabilityIndex},
		{"both down, token presented", fx.newChecker(t, failingIndex{}, failingStore{}, v),
			enforce.Request{Holder: alice, Audience: "documents", Token: cap1.token}, enforce.RevocationStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, r := tt.k.Decide(context.Background(), tt.q)
			if r == nil {
				t.Fatal("allowed with a store down")
			}
			if got := r.Members()["detail"]; r.Reason != enforce.RevocationUnavailable || got != string(tt.want) {
				t.Errorf("refused %s naming %v (%q), want %s", r.Reason, got, r.Message, tt.want)
			}
		})
	}
}
