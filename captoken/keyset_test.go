package captoken

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func TestRotateAndPrune(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 0)
	ctx := context.Background()
	oldKID := ks.ActiveKeyID()
	oldTok := mustMint(t, ks, rootClaims(t0), rootResources())

	rotatedAt := t0.Add(time.Minute)
	if err := ks.Rotate(rotatedAt); err != nil {
		t.Fatal(err)
	}
	if ks.ActiveKeyID() == oldKID {
		t.Fatal("Rotate kept the active kid")
	}
	old, err := v.Verify(ctx, oldTok, Expected{})
	if err != nil {
		t.Fatalf("token of the previous key after Rotate: %v", err)
	}
	if _, err := v.Unseal(old); err != nil {
		t.Fatalf("sealed map of the previous key after Rotate: %v", err)
	}
	newTok := mustMint(t, ks, rootClaims(t0), rootResources())
	if _, h, _ := UnsafeClaimsWithoutVerification(newTok); h.KeyID != ks.ActiveKeyID() {
		t.Fatalf("new token signed with kid %q, want the new active %q", h.KeyID, ks.ActiveKeyID())
	}

	if n := ks.Prune(rotatedAt); n != 0 {
		t.Fatalf("Prune(at retirement) removed %d keys, want 0", n)
	}
	if n := ks.Prune(rotatedAt.Add(time.Second)); n != 2 {
		t.Fatalf("Prune removed %d keys, want 2 (signing + sealing)", n)
	}
	if _, err := v.Verify(ctx, oldTok, Expected{}); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("token of a pruned key: %v, want ErrUnknownKey", err)
	}
	if _, err := v.Unseal(old); !errors.Is(err, ErrSealedMap) {
		t.Fatalf("sealed map of a pruned key: %v, want ErrSealedMap", err)
	}
	if n := ks.Prune(t0.Add(1000 * time.Hour)); n != 0 || len(ks.Keys()) != 2 {
		t.Fatalf("Prune removed active keys: %d removed, %d left", n, len(ks.Keys()))
	}
	if _, err := v.Verify(ctx, newTok, Expected{}); err != nil {
		t.Fatalf("token of the active key: %v", err)
	}
}

func TestJWKSPublicOnly(t *testing.T) {
	ks := newTestKeySet(t, 1)
	if err := ks.Rotate(t0); err != nil {
		t.Fatal(err)
	}
	set := ks.JWKS()
	if len(set.Keys) != 2 {
		t.Fatalf("JWKS has %d keys, want 2 signing keys", len(set.Keys))
	}
	for _, k := range set.Keys {
		if !k.IsPublic() || k.Use != "sig" || k.Algorithm != string(jose.EdDSA) {
			t.Errorf("JWKS key %q: public=%v use=%q alg=%q", k.KeyID, k.IsPublic(), k.Use, k.Algorithm)
		}
		tp, err := k.Thumbprint(crypto.SHA256)
		if err != nil || base64.RawURLEncoding.EncodeToString(tp) != k.KeyID {
			t.Errorf("kid %q is not the RFC 7638 thumbprint", k.KeyID)
		}
	}
	b, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{`"d"`, `"k"`, `"oct"`, `"dir"`} {
		if strings.Contains(string(b), secret) {
			t.Errorf("JWKS JSON contains %s", secret)
		}
	}
	golden(t, "jwks.golden", append(b, '\n'))
}

func TestES256AndAlgorithmMigration(t *testing.T) {
	ks, err := GenerateKeySet(jose.ES256)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	esTok := mustMint(t, ks, rootClaims(t0), rootResources())
	edOnly := newTestVerifier(t, ks, t0, 0)
	if _, err := edOnly.Verify(ctx, esTok, Expected{}); !errors.Is(err, ErrAlgorithm) {
		t.Fatalf("ES256 token on an EdDSA-only verifier: %v", err)
	}
	both, err := NewVerifier(ks, VerifierConfig{Issuer: testIssuer, Algorithms: ks.Algorithms(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := both.Verify(ctx, esTok, Expected{}); err != nil {
		t.Fatalf("ES256 token: %v", err)
	}
	if err := ks.RotateAlgorithm(t0, jose.EdDSA); err != nil {
		t.Fatal(err)
	}
	edTok := mustMint(t, ks, rootClaims(t0), rootResources())
	both, err = NewVerifier(ks, VerifierConfig{Issuer: testIssuer, Algorithms: ks.Algorithms(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{esTok, edTok} {
		if _, err := both.Verify(ctx, tok, Expected{}); err != nil {
			t.Errorf("after migration: %v", err)
		}
	}
	if got := ks.Algorithms(); len(got) != 2 || got[0] != jose.EdDSA {
		t.Errorf("Algorithms() = %v, want [EdDSA ES256]", got)
	}
	if _, err := GenerateKeySet(jose.HS256); !errors.Is(err, ErrKeySet) {
		t.Errorf("GenerateKeySet(HS256): %v", err)
	}
	if err := ks.RotateAlgorithm(t0, "none"); !errors.Is(err, ErrKeySet) {
		t.Errorf("RotateAlgorithm(none): %v", err)
	}
}

func TestEmptyKeySet(t *testing.T) {
	var ks KeySet
	if _, err := Mint(&ks, rootClaims(t0), rootResources()); !errors.Is(err, ErrKeySet) {
		t.Errorf("Mint: %v", err)
	}
	if err := ks.Rotate(t0); !errors.Is(err, ErrKeySet) {
		t.Errorf("Rotate: %v", err)
	}
	if _, err := NewVerifier(&ks, VerifierConfig{Issuer: testIssuer, Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewVerifier: %v", err)
	}
	if ks.ActiveKeyID() != "" || len(ks.JWKS().Keys) != 0 || ks.Prune(t0) != 0 {
		t.Error("empty key set reports keys")
	}
}
