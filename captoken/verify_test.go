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

// attackHeader is a header naming our kid, with any alg.
func attackHeader(f *verifyFixture, alg string) map[string]any {
	return map[string]any{"alg": alg, "typ": TokenType, "kid": f.ourKID()}
}

func verifyCases() []verifyCase {
	return slices.Concat(validCases(), headerAttackCases(), signatureAndClaimsCases(), foreignAndTimeCases())
}

// validCases are tokens Verify must accept.
func validCases() []verifyCase {
	return []verifyCase{
		{name: "valid", token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "valid with audience", want: Expected{Audience: testAudience},
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
		{name: "valid within leeway", now: t0.Add(time.Hour + 30*time.Second), leeway: time.Minute,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid }},
	}
}

// headerAttackCases attack the header: algorithms, embedded or remote keys, kids.
func headerAttackCases() []verifyCase {
	return []verifyCase{
		{name: "alg none", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, attackHeader(f, "none"), mustJSON(t, f.claims))
		}},
		{name: "alg None", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, attackHeader(f, "None"), mustJSON(t, f.claims))
		}},
		{name: "alg NONE", wantErr: ErrAlgorithm, token: func(t *testing.T, f *verifyFixture) string {
			return unsignedToken(t, attackHeader(f, "NONE"), mustJSON(t, f.claims))
		}},
		{name: "alg none with a signature copied from a valid token", wantErr: ErrAlgorithm,
			token: func(t *testing.T, f *verifyFixture) string {
				_, _, sig, _ := splitCompact(f.valid)
				return unsignedToken(t, attackHeader(f, "none"), mustJSON(t, f.claims)) + sig
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
	}
}

// signatureAndClaimsCases attack the signature and the claims encoding.
func signatureAndClaimsCases() []verifyCase {
	return []verifyCase{
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
	}
}

// foreignAndTimeCases are foreign tokens, time, issuer, audience and framing.
func foreignAndTimeCases() []verifyCase {
	return []verifyCase{
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
		{name: "newline inside the token", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid[:20] + "\r\n" + f.valid[20:] }},
		{name: "trailing space", wantErr: ErrMalformed,
			token: func(t *testing.T, f *verifyFixture) string { return f.valid + " " }},
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
