package oidctest

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// SignWith signs claims with alg and key (anything jose.SigningKey accepts:
// a crypto.Signer, a jose.JSONWebKey, or []byte for HS*). header adds or
// overrides protected header parameters, such as "kid", "typ" or "jwk".
func (i *Issuer) SignWith(alg jose.SignatureAlgorithm, key any, header, claims map[string]any) string {
	i.t.Helper()
	t := i.t
	opts := &jose.SignerOptions{}
	for k, v := range header {
		opts.WithHeader(jose.HeaderKey(k), v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatalf("oidctest: signer for %s: %v", alg, err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatalf("oidctest: marshal claims: %v", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatalf("oidctest: sign: %v", err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatalf("oidctest: serialize: %v", err)
	}
	return out
}

// SignHS256WithPublicKey returns the algorithm-confusion attack: an HS256
// token whose HMAC key is the issuer's public key in PEM (PKIX), with the
// issuer's kid. A verifier that lets the token pick the algorithm accepts it.
func (i *Issuer) SignHS256WithPublicKey(claims map[string]any) string {
	i.t.Helper()
	der, err := x509.MarshalPKIXPublicKey(i.PublicKey())
	if err != nil {
		i.t.Fatalf("oidctest: marshal public key: %v", err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return i.SignWith(jose.HS256, secret, map[string]any{"kid": i.KeyID()}, claims)
}

// SignWithUnknownKey signs claims with a freshly generated key that the
// JWKS does not hold, under the current key's kid.
func (i *Issuer) SignWithUnknownKey(claims map[string]any) string {
	i.t.Helper()
	k := GenerateKey(i.t, i.alg, i.KeyID())
	return i.SignWith(i.alg, k, nil, claims)
}

// SignWithEmbeddedJWK signs claims with a fresh key and embeds that key's
// public half as the "jwk" header, alongside the issuer's kid. A verifier
// that trusts a key from the token accepts it.
func (i *Issuer) SignWithEmbeddedJWK(claims map[string]any) string {
	i.t.Helper()
	k := GenerateKey(i.t, i.alg, "")
	return i.SignWith(i.alg, k.Key, map[string]any{"kid": i.KeyID(), "jwk": k.Public()}, claims)
}

// Unsigned returns an unsigned token: header {"alg": alg, "typ": "JWT",
// "kid": <current kid>}, the claims, and an empty signature. Use alg
// "none", "None", "NONE" and so on.
func (i *Issuer) Unsigned(alg string, claims map[string]any) string {
	i.t.Helper()
	header := map[string]any{"alg": alg, "typ": "JWT", "kid": i.KeyID()}
	return segment(i.t, header) + "." + segment(i.t, claims) + "."
}

// Tamper returns token with its payload replaced by claims, keeping the
// original header and signature.
func (i *Issuer) Tamper(token string, claims map[string]any) string {
	t := i.t
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("oidctest: Tamper: not a compact JWS")
	}
	return parts[0] + "." + segment(t, claims) + "." + parts[2]
}

func segment(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("oidctest: marshal: %v", err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
