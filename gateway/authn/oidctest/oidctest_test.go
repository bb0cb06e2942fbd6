package oidctest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func fetch(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func jwks(t *testing.T, i *Issuer) jose.JSONWebKeySet {
	t.Helper()
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if code := fetch(t, i.URL()+"/.well-known/openid-configuration", &meta); code != 200 || meta.Issuer != i.URL() {
		t.Fatalf("discovery: %d %+v", code, meta)
	}
	var set jose.JSONWebKeySet
	if code := fetch(t, meta.JWKSURI, &set); code != 200 {
		t.Fatalf("jwks: %d", code)
	}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			t.Fatalf("JWKS leaks a private key: %s", k.KeyID)
		}
	}
	return set
}

func TestSignVerifiesAgainstJWKS(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA} {
		t.Run(string(alg), func(t *testing.T) {
			i := NewWithAlgorithm(t, alg)
			claims := i.Claims("aud", time.Unix(1000, 0))
			tok, err := jwt.ParseSigned(i.Sign(claims), []jose.SignatureAlgorithm{alg})
			if err != nil {
				t.Fatal(err)
			}
			set := jwks(t, i)
			keys := set.Key(tok.Headers[0].KeyID)
			if len(keys) != 1 {
				t.Fatalf("kid %q: %d keys in JWKS", tok.Headers[0].KeyID, len(keys))
			}
			var got jwt.Claims
			if err := tok.Claims(keys[0], &got); err != nil || got.Issuer != i.URL() {
				t.Fatalf("claims %+v, err %v", got, err)
			}
		})
	}
}

func TestRotateServesBothKeys(t *testing.T) {
	i := NewWithAlgorithm(t, jose.ES256)
	old := i.KeyID()
	if i.Rotate() == old || i.KeyID() == old {
		t.Fatal("Rotate did not change the signing kid")
	}
	set := jwks(t, i)
	if len(set.Key(old)) != 1 || len(set.Key(i.KeyID())) != 1 {
		t.Fatalf("JWKS after rotation: %d keys", len(set.Keys))
	}
	if i.JWKSRequests() != 1 || i.DiscoveryRequests() != 1 {
		t.Fatalf("counters: jwks %d, discovery %d", i.JWKSRequests(), i.DiscoveryRequests())
	}
}

func TestSetAvailable(t *testing.T) {
	i := NewWithAlgorithm(t, jose.ES256)
	i.SetAvailable(false)
	for _, p := range []string{"/.well-known/openid-configuration", "/jwks"} {
		if code := fetch(t, i.URL()+p, nil); code != http.StatusServiceUnavailable {
			t.Fatalf("%s while down: %d", p, code)
		}
	}
	if i.JWKSRequests() != 0 || i.DiscoveryRequests() != 0 {
		t.Fatal("requests while down were counted")
	}
}

func header(t *testing.T, token string) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAdversarialTokens(t *testing.T) {
	i := New(t)
	claims := i.Claims("aud", time.Unix(1000, 0))
	kid := i.KeyID()
	tests := []struct {
		name    string
		token   string
		wantAlg string
		wantJWK bool
	}{
		{"hs256 with public key", i.SignHS256WithPublicKey(claims), "HS256", false},
		{"none", i.Unsigned("none", claims), "none", false},
		{"NONE", i.Unsigned("NONE", claims), "NONE", false},
		{"unknown key", i.SignWithUnknownKey(claims), "RS256", false},
		{"embedded jwk", i.SignWithEmbeddedJWK(claims), "RS256", true},
	}
	set := jwks(t, i)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := header(t, tt.token)
			if h["alg"] != tt.wantAlg || h["kid"] != kid || (h["jwk"] != nil) != tt.wantJWK {
				t.Fatalf("header = %v", h)
			}
			// None of them verifies with the issuer's real key.
			tok, err := jwt.ParseSigned(tt.token, []jose.SignatureAlgorithm{jose.RS256})
			if err == nil {
				var c map[string]any
				if tok.Claims(set.Key(kid)[0], &c) == nil {
					t.Fatal("adversarial token verifies with the real key")
				}
			}
		})
	}
	tampered := i.Tamper(i.Sign(claims), map[string]any{"iss": "x"})
	tok, err := jwt.ParseSigned(tampered, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if tok.Claims(set.Key(kid)[0], &c) == nil {
		t.Fatal("tampered token verifies")
	}
}
