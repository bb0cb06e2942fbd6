package captoken

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// verifyFixture is what the Verify table cases build their tokens from.
type verifyFixture struct {
	ks       *KeySet
	other    *KeySet // another capgate deployment's key set
	attacker ed25519.PrivateKey
	valid    string
	claims   Claims
	fetchURL string // records any fetch; none must ever happen
}

func newVerifyFixture(t *testing.T, hits *atomic.Int64) *verifyFixture {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	_, attacker, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	f := &verifyFixture{
		ks: newTestKeySet(t, 1), other: newTestKeySet(t, 2), attacker: attacker,
		claims: rootClaims(t0), fetchURL: srv.URL + "/keys",
	}
	f.valid = mustMint(t, f.ks, f.claims, rootResources())
	return f
}

// claimsMap returns the valid claims as a generic map, to be bent.
func (f *verifyFixture) claimsMap(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	_, payload, _, _ := splitCompact(f.valid)
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rawPayload returns the exact claims bytes of the valid token.
func (f *verifyFixture) rawPayload(t *testing.T) []byte {
	t.Helper()
	_, payload, _, _ := splitCompact(f.valid)
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func (f *verifyFixture) ourKID() string { return f.ks.ActiveKeyID() }

// signManual signs exactly the given header and payload bytes with our
// Ed25519 key, for headers go-jose would never produce.
func (f *verifyFixture) signManual(header, payload []byte) string {
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	priv := f.ks.activeSigning().private.Key.(ed25519.PrivateKey)
	return input + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(input)))
}

func (f *verifyFixture) withClaims(t *testing.T, edit func(m map[string]any)) string {
	m := f.claimsMap(t)
	edit(m)
	return signRaw(t, f.ks, mustJSON(t, m), nil)
}

func (f *verifyFixture) mintEdited(t *testing.T, edit func(c *Claims)) string {
	c := rootClaims(t0)
	edit(&c)
	return mustMint(t, f.ks, c, rootResources())
}

type verifyCase struct {
	name    string
	token   func(t *testing.T, f *verifyFixture) string
	now     time.Time // t0 when zero
	leeway  time.Duration
	algs    []jose.SignatureAlgorithm // EdDSA when nil
	want    Expected
	wantErr error
}

func verifyCases() []verifyCase {
	hdr := func(f *verifyFixture, alg string) map[string]any {
		return map[string]any{"alg": alg, "typ": TokenType, "kid": f.ourKID()}
	}
	return []verifyCase{
		{name: "valid", token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "valid with audience", want: Expected{Audience: testAudience},
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "valid within leeway", now: t0.Add(time.Hour + 30*time.Second), leeway: time.Minute,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "alg none", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, hdr(f, "none"), mustJSON(t, f.claims))
		}},
		{name: "alg None", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, hdr(f, "None"), mustJSON(t, f.claims))
		}},
		{name: "alg NONE", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, hdr(f, "NONE"), mustJSON(t, f.claims))
		}},
		{name: "alg none with a signature copied from a valid token", wantErr: ErrAlgorithm,
			token: func(t *testing.T, f *verifyFixture) string {
				_, _, sig, _ := splitCompact(f.valid)
				return unsignedToken(t, hdr(f, "none"), mustJSON(t, f.claims)) + sig
			}},
		{name: "HS256 keyed with the Ed25519 public key", wantErr: ErrAlgorithm,
			token: func(t *testing.T, f *verifyFixture) string {
				pub := []byte(f.ks.activeSigning().public.Key.(ed25519.PublicKey))
				return signWith(t, jose.HS256, pub, mustJSON(t, f.claims), map[string]any{"kid": f.ourKID()}, false)
			}},
		{name: "HS256 keyed with the public key, verifier also allowing ES256", wantErr: ErrAlgorithm,
			algs: []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256},
			token: func(t *testing.T, f *verifyFixture) string {
				pub := []byte(f.ks.activeSigning().public.Key.(ed25519.PublicKey))
				return signWith(t, jose.HS256, pub, mustJSON(t, f.claims), map[string]any{"kid": f.ourKID()}, false)
			}},
		{name: "embedded jwk of the attacker key", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), nil, true)
			}},
		{name: "embedded jwk of the attacker key with our kid", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), map[string]any{"kid": f.ourKID()}, true)
			}},
		{name: "jku pointing at the attacker", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), map[string]any{"jku": f.fetchURL, "kid": "evil"}, false)
			}},
		{name: "x5u pointing at the attacker", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), map[string]any{"x5u": f.fetchURL, "kid": "evil"}, false)
			}},
		{name: "x5c chain", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claims), map[string]any{"x5c": []string{"MIIB"}})
			}},
		{name: "crit header", wantErr: ErrForbiddenHeader,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claims), map[string]any{"crit": []string{"exp"}, "exp": 1})
			}},
		{name: "unknown kid", wantErr: ErrUnknownKey,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), map[string]any{"kid": "attacker-key"}, false)
			}},
		{name: "traversal kid", wantErr: ErrUnknownKey,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claims), map[string]any{"kid": "../../etc/passwd"})
			}},
		{name: "no kid", wantErr: ErrUnknownKey,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.ks.activeSigning().private.Key, mustJSON(t, f.claims), nil, false)
			}},
		{name: "kid is a number", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claims), map[string]any{"kid": 7})
			}},
		{name: "duplicate kid in header", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				h := `{"alg":"EdDSA","kid":"` + f.ourKID() + `","kid":"x","typ":"cap+jwt"}`
				return f.signManual([]byte(h), mustJSON(t, f.claims))
			}},
		{name: "case-variant duplicate typ in header", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				h := `{"alg":"EdDSA","kid":"` + f.ourKID() + `","typ":"cap+jwt","TYP":"JWT"}`
				return f.signManual([]byte(h), mustJSON(t, f.claims))
			}},
		{name: "ES256 header on our EdDSA kid", wantErr: ErrAlgorithm,
			algs: []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256},
			token: func(t *testing.T, f *verifyFixture) string {
				ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				if err != nil {
					t.Fatal(err)
				}
				return signWith(t, jose.ES256, ec, mustJSON(t, f.claims), map[string]any{"kid": f.ourKID()}, false)
			}},
		{name: "signature transplanted from another token", wantErr: ErrInvalidSignature,
			token: func(t *testing.T, f *verifyFixture) string {
				other := f.mintEdited(t, func(c *Claims) { c.Holder = "agent:mallory" })
				h, p, _, _ := splitCompact(other)
				_, _, sig, _ := splitCompact(f.valid)
				return h + "." + p + "." + sig
			}},
		{name: "Ed25519 S+L malleated signature", wantErr: ErrInvalidSignature,
			token: func(t *testing.T, f *verifyFixture) string { return malleateS(t, f.valid) }},
		{name: "payload edited (holder)", wantErr: ErrInvalidSignature,
			token: func(t *testing.T, f *verifyFixture) string {
				return replacePayload(t, f.valid, func(m map[string]any) { m["hld"] = "agent:mallory" })
			}},
		{name: "sealed map edited in the token", wantErr: ErrInvalidSignature,
			token: func(t *testing.T, f *verifyFixture) string {
				return replacePayload(t, f.valid, func(m map[string]any) {
					s := m["srm"].(string)
					m["srm"] = s[:len(s)-2] + flipB64(s[len(s)-2]) + s[len(s)-1:]
				})
			}},
		{name: "missing exp", wantErr: ErrMissingClaim,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { delete(m, "exp") })
			}},
		{name: "exp as a string", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { m["exp"] = "1736427600" })
			}},
		{name: "exp as a float", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { m["exp"] = 1736427600.5 })
			}},
		{name: "unknown claim", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { m["admin"] = true })
			}},
		{name: "case-variant claim", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { m["HLD"] = m["hld"]; delete(m, "hld") })
			}},
		{name: "duplicate claim", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				p := strings.Replace(string(f.rawPayload(t)), `{`, `{"hld":"agent:mallory",`, 1)
				return signRaw(t, f.ks, []byte(p), nil)
			}},
		{name: "claims with extra whitespace", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, append(f.rawPayload(t), ' '), nil)
			}},
		{name: "claims reordered", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claimsMap(t)), nil) // map keys come out sorted
			}},
		{name: "escaped spelling of a claim value", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				p := strings.Replace(string(f.rawPayload(t)), `"documents:read"`, `"documents\u003aread"`, 1)
				return signRaw(t, f.ks, []byte(p), nil)
			}},
		{name: "depth above max depth", wantErr: ErrInvalidClaims,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.withClaims(t, func(m map[string]any) { m["dep"] = 3 })
			}},
		{name: "minted by another capgate key set", wantErr: ErrUnknownKey,
			token: func(t *testing.T, f *verifyFixture) string { return mustMint(t, f.other, f.claims, rootResources()) }},
		{name: "another capgate key set signing under our kid", wantErr: ErrInvalidSignature,
			token: func(t *testing.T, f *verifyFixture) string {
				k := f.other.activeSigning().private
				k.KeyID = f.ourKID()
				return signWith(t, jose.EdDSA, k, mustJSON(t, f.claims), nil, false)
			}},
		{name: "ordinary OIDC JWT (RS256, typ JWT)", wantErr: ErrAlgorithm,
			token: func(t *testing.T, f *verifyFixture) string {
				rk, err := rsa.GenerateKey(rand.Reader, 2048)
				if err != nil {
					t.Fatal(err)
				}
				claims := map[string]any{"iss": testIssuer, "sub": "alice", "aud": testAudience, "exp": t0.Add(time.Hour).Unix()}
				return signWith(t, jose.RS256, rk, mustJSON(t, claims), map[string]any{"typ": "JWT", "kid": "idp-1"}, false)
			}},
		{name: "EdDSA JWT with typ JWT from another key", wantErr: ErrWrongType,
			token: func(t *testing.T, f *verifyFixture) string {
				return signWith(t, jose.EdDSA, f.attacker, mustJSON(t, f.claims), map[string]any{"typ": "JWT", "kid": "idp-1"}, false)
			}},
		{name: "our key but typ JWT", wantErr: ErrWrongType,
			token: func(t *testing.T, f *verifyFixture) string {
				return signRaw(t, f.ks, mustJSON(t, f.claims), map[string]any{"typ": "JWT"})
			}},
		{name: "expired", now: t0.Add(2 * time.Hour), wantErr: ErrExpired,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "expired exactly at exp", now: t0.Add(time.Hour), wantErr: ErrExpired,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "nbf in the future", wantErr: ErrNotYetValid,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.mintEdited(t, func(c *Claims) { c.NotBefore = NewNumericDate(t0.Add(10 * time.Minute)) })
			}},
		{name: "iat in the future", wantErr: ErrNotYetValid,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.mintEdited(t, func(c *Claims) { c.IssuedAt = NewNumericDate(t0.Add(10 * time.Minute)) })
			}},
		{name: "wrong issuer", wantErr: ErrWrongIssuer,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.mintEdited(t, func(c *Claims) { c.Issuer = "https://other.test" })
			}},
		{name: "wrong issuer and expired reports the issuer", now: t0.Add(2 * time.Hour), wantErr: ErrWrongIssuer,
			token: func(t *testing.T, f *verifyFixture) string {
				return f.mintEdited(t, func(c *Claims) { c.Issuer = "https://other.test" })
			}},
		{name: "wrong audience", want: Expected{Audience: "summarizer"}, wantErr: ErrWrongAudience,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "oversized", wantErr: ErrTooLarge,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid + strings.Repeat("A", MaxTokenSize) }},
		{name: "empty", wantErr: ErrMalformed, token: func(t *testing.T, f *verifyFixture) string { return "" }},
		{name: "two segments", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid[:strings.LastIndexByte(f.valid, '.')] }},
		{name: "four segments", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid + ".AAAA" }},
		{name: "JWS JSON serialization", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string {
				h, p, s, _ := splitCompact(f.valid)
				return `{"protected":"` + h + `","payload":"` + p + `","signature":"` + s + `"}`
			}},
		{name: "signature not base64url", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid[:len(f.valid)-4] + "+/==" }},
	}
}

func TestVerify(t *testing.T) {
	var hits atomic.Int64
	f := newVerifyFixture(t, &hits)
	for _, tc := range verifyCases() {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.now
			if now.IsZero() {
				now = t0
			}
			algs := tc.algs
			if algs == nil {
				algs = []jose.SignatureAlgorithm{jose.EdDSA}
			}
			v, err := NewVerifier(f.ks, VerifierConfig{Issuer: testIssuer, Algorithms: algs, Leeway: tc.leeway,
				Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.Verify(context.Background(), tc.token(t, f), tc.want)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Verify() error = %v, want %v", err, tc.wantErr)
			}
			checkErrorClass(t, err)
			if err == nil && got.CapabilityID != f.claims.CapabilityID {
				t.Errorf("verified cid %q, want %q", got.CapabilityID, f.claims.CapabilityID)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the verifier fetched a key URL from a token %d times", n)
	}
}

// checkErrorClass asserts the gateway's mapping: time failures are not
// ErrInvalid, everything else is.
func checkErrorClass(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	timeErr := errors.Is(err, ErrExpired) || errors.Is(err, ErrNotYetValid)
	if timeErr == errors.Is(err, ErrInvalid) {
		t.Errorf("error %v: time failure = %v but ErrInvalid = %v", err, timeErr, !timeErr)
	}
}

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
