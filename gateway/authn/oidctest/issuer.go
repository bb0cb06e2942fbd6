package oidctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Issuer is an in-process OIDC issuer. Its methods are safe for concurrent
// use, except that token builders must run on the test's goroutine.
type Issuer struct {
	t   testing.TB
	srv *httptest.Server
	alg jose.SignatureAlgorithm

	mu           sync.Mutex
	keys         []jose.JSONWebKey // private keys; the last one signs
	down         bool
	jwksRequests int
	discoveries  int
	flow         codeFlow
}

// New starts an RS256 issuer, closed when the test ends.
func New(t testing.TB) *Issuer { return NewWithAlgorithm(t, jose.RS256) }

// NewWithAlgorithm starts an issuer signing with alg: jose.RS256,
// jose.ES256 or jose.EdDSA.
func NewWithAlgorithm(t testing.TB, alg jose.SignatureAlgorithm) *Issuer {
	t.Helper()
	i := &Issuer{t: t, alg: alg}
	i.keys = []jose.JSONWebKey{i.newKey()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", i.serveDiscovery)
	mux.HandleFunc("GET /jwks", i.serveJWKS)
	mux.HandleFunc("GET /authorize", i.serveAuthorize)
	mux.HandleFunc("POST /token", i.serveToken)
	i.srv = httptest.NewServer(mux)
	t.Cleanup(i.srv.Close)
	return i
}

// GenerateKey returns a fresh private JWK for alg with the given kid.
func GenerateKey(t testing.TB, alg jose.SignatureAlgorithm, kid string) jose.JSONWebKey {
	t.Helper()
	var (
		key crypto.Signer
		err error
	)
	switch alg {
	case jose.RS256:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("oidctest: unsupported algorithm %q", alg)
	}
	if err != nil {
		t.Fatalf("oidctest: generate %s key: %v", alg, err)
	}
	return jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: string(alg), Use: "sig"}
}

func (i *Issuer) newKey() jose.JSONWebKey {
	return GenerateKey(i.t, i.alg, fmt.Sprintf("key-%d-%s", len(i.keys)+1, rand.Text()[:8]))
}

// URL returns the issuer URL, the value of iss (no trailing slash).
func (i *Issuer) URL() string { return i.srv.URL }

// KeyID returns the kid of the current signing key.
func (i *Issuer) KeyID() string { return i.current().KeyID }

// PublicKey returns the current public key.
func (i *Issuer) PublicKey() crypto.PublicKey {
	k := i.current()
	return k.Public().Key
}

func (i *Issuer) current() jose.JSONWebKey {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.keys[len(i.keys)-1]
}

// Rotate adds a new signing key and returns its kid. Both keys stay in the
// JWKS; Sign uses the new one from now on.
func (i *Issuer) Rotate() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	k := i.newKey()
	i.keys = append(i.keys, k)
	return k.KeyID
}

// SetAvailable makes discovery and JWKS answer 503 (false) or normally
// (true, the initial state).
func (i *Issuer) SetAvailable(up bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.down = !up
}

// JWKSRequests returns how many JWKS requests were served successfully.
func (i *Issuer) JWKSRequests() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.jwksRequests
}

// Claims returns a valid claim set for audience: iss, sub "test-subject",
// aud, iat = now, exp = now + 1h. Add email, groups or azp as needed.
func (i *Issuer) Claims(audience string, now time.Time) map[string]any {
	return map[string]any{
		"iss": i.URL(),
		"sub": "test-subject",
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
}

// Sign signs claims exactly as given with the current key and its kid.
func (i *Issuer) Sign(claims map[string]any) string {
	i.t.Helper()
	return i.SignWith(i.alg, i.current(), nil, claims)
}

// DiscoveryRequests returns how many discovery requests were served
// successfully.
func (i *Issuer) DiscoveryRequests() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.discoveries
}

func (i *Issuer) serveDiscovery(w http.ResponseWriter, _ *http.Request) {
	i.mu.Lock()
	down := i.down
	if !down {
		i.discoveries++
	}
	i.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, map[string]any{
		"issuer":                                i.URL(),
		"jwks_uri":                              i.URL() + "/jwks",
		"authorization_endpoint":                i.URL() + "/authorize",
		"token_endpoint":                        i.URL() + "/token",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{string(i.alg)},
	})
}

func (i *Issuer) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	i.mu.Lock()
	down := i.down
	var set jose.JSONWebKeySet
	for _, k := range i.keys {
		set.Keys = append(set.Keys, k.Public())
	}
	if !down {
		i.jwksRequests++
	}
	i.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, set)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
