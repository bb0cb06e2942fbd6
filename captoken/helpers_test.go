package captoken

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const (
	testIssuer   = "https://capgate.test"
	testAudience = "documents"
)

// t0 is the fixed "now" of the tests: the SEP's example morning.
var t0 = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

// seededReader is a deterministic randomness source for reproducible keys.
func seededReader(seed byte) *rand.ChaCha8 {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

func newTestKeySet(t testing.TB, seed byte) *KeySet {
	t.Helper()
	ks, err := GenerateKeySetFrom(jose.EdDSA, seededReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func newTestVerifier(t testing.TB, ks *KeySet, now time.Time, cacheSize int) *Verifier {
	t.Helper()
	v, err := NewVerifier(ks, VerifierConfig{
		Issuer:     testIssuer,
		Algorithms: []jose.SignatureAlgorithm{jose.EdDSA},
		Now:        func() time.Time { return now },
		CacheSize:  cacheSize,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// rootClaims is a root capability as the gateway would issue it for the
// quickstart world: alice reads two Q1 reports.
func rootClaims(now time.Time) Claims {
	return Claims{
		Issuer:         testIssuer,
		Principal:      "user:alice@example.com",
		Holder:         "user:alice@example.com",
		Audience:       testAudience,
		CapabilityID:   "cap_AAAAAAAAAAAAAAAAAAAAAA",
		Grant:          "documents:read",
		Operations:     []string{"retrieve", "search", "list"},
		Handles:        []string{"rh_001", "rh_002"},
		Expiry:         NewNumericDate(now.Add(time.Hour)),
		IssuedAt:       NewNumericDate(now),
		RevocationID:   "rv_AAAAAAAAAAAAAAAAAAAAAA",
		MaxDepth:       2,
		Purpose:        "Summarize quarterly reports",
		Attenuable:     true,
		PolicyRevision: "rev-1",
	}
}

func rootResources() map[string]string {
	return map[string]string{"rh_001": "reports/q1-financial", "rh_002": "reports/q1-sales"}
}

func mustMint(t testing.TB, ks *KeySet, c Claims, res map[string]string) string {
	t.Helper()
	tok, err := Mint(ks, c, res)
	if err != nil {
		t.Fatalf("Mint: %v", err)
	}
	return tok
}

// signRaw signs an arbitrary payload with the key set's active key, with
// extra (or overriding) header parameters: a token only the gateway could
// have made, used to test what Verify does with claims Mint would refuse.
func signRaw(t testing.TB, ks *KeySet, payload []byte, hdr map[string]any) string {
	t.Helper()
	k := ks.activeSigning()
	return signWith(t, k.alg, k.private, payload, hdr, false)
}

// signWith signs payload with any key (typ cap+jwt unless hdr overrides).
func signWith(t testing.TB, alg jose.SignatureAlgorithm, key any, payload []byte, hdr map[string]any, embed bool) string {
	t.Helper()
	opts := (&jose.SignerOptions{EmbedJWK: embed}).WithType(TokenType)
	for k, v := range hdr {
		opts.WithHeader(jose.HeaderKey(k), v)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsignedToken builds header.payload. with an empty signature by hand.
func unsignedToken(t testing.TB, hdr map[string]any, payload []byte) string {
	t.Helper()
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(h) + "." + enc.EncodeToString(payload) + "."
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from golden file:\n got: %s\nwant: %s", name, got, want)
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// pick returns a random sub-list of xs (possibly empty), in random order.
func pick(rng *rand.Rand, xs []string) []string {
	var out []string
	for _, i := range rng.Perm(len(xs)) {
		if rng.IntN(3) == 0 {
			out = append(out, xs[i])
		}
	}
	return out
}
