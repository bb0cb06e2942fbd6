package captoken

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestVerifyNonCanonicalSignature documents a property of base64url that
// revocation must not trip over. An Ed25519 signature is 64 bytes, encoded
// in 86 characters whose last one carries 4 unused bits. Changing those
// bits gives a different token string that decodes to the very same
// signature, so it still verifies. That is not a forgery (the signed claims
// are identical), but it means a token string is not a stable identifier:
// revocation and replay protection MUST be keyed on the capability and
// revocation ids, which are the same for both strings, never on the string
// or its hash.
func TestVerifyNonCanonicalSignature(t *testing.T) {
	ks := newTestKeySet(t, 1)
	v := newTestVerifier(t, ks, t0, 0)
	tok := mustMint(t, ks, rootClaims(t0), rootResources())
	variant := tok[:len(tok)-1] + flipB64(tok[len(tok)-1])
	if variant == tok {
		t.Fatal("variant equals original")
	}
	a, err := v.Verify(context.Background(), tok, Expected{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Verify(context.Background(), variant, Expected{})
	if err != nil {
		t.Fatalf("non-canonical variant: %v (expected it to verify; see comment)", err)
	}
	if a.CapabilityID != b.CapabilityID || !slices.Equal(a.RevocationIDs(), b.RevocationIDs()) {
		t.Errorf("variant has ids %s %v, original %s %v", b.CapabilityID, b.RevocationIDs(), a.CapabilityID, a.RevocationIDs())
	}
}

// flipB64 flips the lowest bit of a base64url character: for the last
// character of an Ed25519 signature, one of its unused bits.
func flipB64(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	return string(alphabet[strings.IndexByte(alphabet, c)^1])
}

// malleateS returns tok with its Ed25519 S scalar replaced by S + L, the
// classic malleability: the same signature modulo L, in a non-canonical
// encoding that RFC 8032 verifiers must refuse.
func malleateS(t testing.TB, tok string) string {
	t.Helper()
	h, p, s, _ := splitCompact(tok)
	sig, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(sig) != ed25519.SignatureSize {
		t.Fatalf("signature: %v", err)
	}
	// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
	l := [32]byte{0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}
	var carry uint16
	for i := range 32 {
		sum := uint16(sig[32+i]) + uint16(l[i]) + carry
		sig[32+i], carry = byte(sum), sum>>8
	}
	if carry != 0 {
		t.Fatal("S+L overflowed 256 bits")
	}
	return h + "." + p + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// replacePayload edits the claims of tok and keeps its original signature.
func replacePayload(t *testing.T, tok string, edit func(m map[string]any)) string {
	t.Helper()
	h, p, s, _ := splitCompact(tok)
	raw, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	return h + "." + base64.RawURLEncoding.EncodeToString(mustJSON(t, m)) + "." + s
}
