package captoken

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// sealingKeySize is the size of a sealing key: 256 bits for A256GCM.
const sealingKeySize = 32

// KeySet holds the gateway's own keys: one active signing key plus previous
// signing keys still accepted for verification, and one active sealing key
// plus previous ones for the sealed resource maps. It is safe for concurrent
// use; Rotate and Prune may run while tokens are minted and verified.
//
// Use GenerateKeySet, GenerateKeySetFrom or LoadKeySet: the zero value has
// no keys and every operation on it fails with ErrKeySet.
type KeySet struct {
	rotateMu sync.Mutex // serialises rotations, and with them uses of rand
	mu       sync.RWMutex
	rand     io.Reader
	signing  []*signingKey // signing[0] is active
	sealing  []*sealingKey // sealing[0] is active
	// nextSigning and nextSealing are the published keys (Publish): they
	// verify and unseal but do not sign or seal. Both nil or both set.
	nextSigning *signingKey
	nextSealing *sealingKey
}

type signingKey struct {
	kid     string
	alg     jose.SignatureAlgorithm
	private jose.JSONWebKey
	public  jose.JSONWebKey
	retired time.Time // zero while active
	// signers holds one go-jose signer per typ, built on first use: a
	// signer is safe for concurrent use, and building one per token was
	// a third of minting.
	signers sync.Map // string → jose.Signer
}

type sealingKey struct {
	kid     string
	key     []byte
	retired time.Time // zero while active
}

// KeyInfo describes one key of a KeySet, without key material.
type KeyInfo struct {
	// KeyID is the key's kid.
	KeyID string
	// Algorithm is the signature algorithm, or "dir" for a sealing key.
	Algorithm string
	// Sealing is true for a sealing (JWE) key, false for a signing key.
	Sealing bool
	// Active is true for the key used for new tokens.
	Active bool
	// Published is true for a key that verifies but does not sign yet
	// (Publish, then Activate).
	Published bool
	// Retired is when the key stopped being active (zero while active).
	Retired time.Time
}

// GenerateKeySet creates a key set with a fresh signing key for alg
// (jose.EdDSA or jose.ES256) and a fresh sealing key, using crypto/rand.
func GenerateKeySet(alg jose.SignatureAlgorithm) (*KeySet, error) {
	return GenerateKeySetFrom(alg, nil)
}

// GenerateKeySetFrom is GenerateKeySet drawing randomness from r (crypto/rand
// when nil); later rotations use r too. Ed25519 keys are derived from r
// deterministically; ES256 keys always come from the system CSPRNG (Go 1.26
// ignores the reader for ECDSA), so r only makes EdDSA key sets reproducible.
func GenerateKeySetFrom(alg jose.SignatureAlgorithm, r io.Reader) (*KeySet, error) {
	if r == nil {
		r = rand.Reader
	}
	sk, err := newSigningKey(alg, r)
	if err != nil {
		return nil, err
	}
	ek, err := newSealingKey(r)
	if err != nil {
		return nil, err
	}
	return &KeySet{rand: r, signing: []*signingKey{sk}, sealing: []*sealingKey{ek}}, nil
}

// Rotate makes fresh signing and sealing keys active at once, with the
// algorithm of the current signing key. The previous keys stay in the set,
// marked retired at now, so tokens they signed keep verifying until Prune
// removes them. Replicas still running with the old key set refuse tokens
// signed by the new key: for a rolling restart use Publish, then Activate.
// Rotate refuses while keys are published.
func (ks *KeySet) Rotate(now time.Time) error {
	k := ks.activeSigning()
	if k == nil {
		return fmt.Errorf("%w: no keys", ErrKeySet)
	}
	return ks.RotateAlgorithm(now, k.alg)
}

// RotateAlgorithm is Rotate with a new signing algorithm, to migrate between
// EdDSA and ES256. Verifiers must list both algorithms during the migration.
func (ks *KeySet) RotateAlgorithm(now time.Time, alg jose.SignatureAlgorithm) error {
	ks.rotateMu.Lock()
	defer ks.rotateMu.Unlock()
	if ks.activeSigning() == nil || ks.activeSealing() == nil {
		return fmt.Errorf("%w: no keys", ErrKeySet)
	}
	if kid := ks.PublishedKeyID(); kid != "" {
		return fmt.Errorf("%w: key %s is published; activate it instead", ErrKeySet, kid)
	}
	r := ks.rand
	if r == nil {
		r = rand.Reader
	}
	sk, err := newSigningKey(alg, r)
	if err != nil {
		return err
	}
	ek, err := newSealingKey(r)
	if err != nil {
		return err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.signing[0].retired = now
	ks.sealing[0].retired = now
	ks.signing = append([]*signingKey{sk}, ks.signing...)
	ks.sealing = append([]*sealingKey{ek}, ks.sealing...)
	return nil
}

// Prune removes previous keys retired before the given time and returns how
// many it removed. The active keys are never removed. Tokens signed by a
// pruned key no longer verify, and their resource maps no longer open, so
// prune only keys retired longer ago than the longest token lifetime.
func (ks *KeySet) Prune(before time.Time) int {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	n := len(ks.signing) + len(ks.sealing)
	ks.signing = slices.DeleteFunc(ks.signing, func(k *signingKey) bool {
		return !k.retired.IsZero() && k.retired.Before(before)
	})
	ks.sealing = slices.DeleteFunc(ks.sealing, func(k *sealingKey) bool {
		return !k.retired.IsZero() && k.retired.Before(before)
	})
	return n - len(ks.signing) - len(ks.sealing)
}

// JWKS returns the public signing keys (active, published and previous),
// each with its kid, alg and use "sig". It never contains private parts or
// sealing keys.
func (ks *KeySet) JWKS() jose.JSONWebKeySet {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	out := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(ks.signing)+1)}
	for _, k := range ks.verifying() {
		out.Keys = append(out.Keys, k.public)
	}
	return out
}

// verifying returns the signing keys that verify: active, published,
// previous. The caller holds ks.mu.
func (ks *KeySet) verifying() []*signingKey {
	if ks.nextSigning == nil || len(ks.signing) == 0 {
		return ks.signing
	}
	return slices.Insert(slices.Clone(ks.signing), 1, ks.nextSigning)
}

// opening returns the sealing keys that unseal: active, published,
// previous. The caller holds ks.mu.
func (ks *KeySet) opening() []*sealingKey {
	if ks.nextSealing == nil || len(ks.sealing) == 0 {
		return ks.sealing
	}
	return slices.Insert(slices.Clone(ks.sealing), 1, ks.nextSealing)
}

// ActiveKeyID returns the kid of the active signing key ("" for an empty
// key set).
func (ks *KeySet) ActiveKeyID() string {
	if k := ks.activeSigning(); k != nil {
		return k.kid
	}
	return ""
}

// Algorithms returns the distinct signature algorithms of the signing keys,
// active first: a suitable VerifierConfig.Algorithms for this set.
func (ks *KeySet) Algorithms() []jose.SignatureAlgorithm {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	var out []jose.SignatureAlgorithm
	for _, k := range ks.verifying() {
		if !slices.Contains(out, k.alg) {
			out = append(out, k.alg)
		}
	}
	return out
}

// Keys describes every key of the set, signing keys first; in each group
// the active key, then the published one, then previous keys.
func (ks *KeySet) Keys() []KeyInfo {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	var out []KeyInfo
	for i, k := range ks.verifying() {
		out = append(out, KeyInfo{KeyID: k.kid, Algorithm: string(k.alg), Active: i == 0,
			Published: k == ks.nextSigning, Retired: k.retired})
	}
	for i, k := range ks.opening() {
		out = append(out, KeyInfo{KeyID: k.kid, Algorithm: string(jose.DIRECT), Sealing: true, Active: i == 0,
			Published: k == ks.nextSealing, Retired: k.retired})
	}
	return out
}

// activeSigning returns the active signing key, nil for an empty set.
func (ks *KeySet) activeSigning() *signingKey {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if len(ks.signing) == 0 {
		return nil
	}
	return ks.signing[0]
}

// activeSealing returns the active sealing key, nil for an empty set.
func (ks *KeySet) activeSealing() *sealingKey {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if len(ks.sealing) == 0 {
		return nil
	}
	return ks.sealing[0]
}

// verificationKey finds a signing key by kid. The kid is only ever used as a
// map-like lookup key: it never names a file or a URL.
func (ks *KeySet) verificationKey(kid string) (*signingKey, bool) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if k := ks.nextSigning; k != nil && k.kid == kid {
		return k, true
	}
	for _, k := range ks.signing {
		if k.kid == kid {
			return k, true
		}
	}
	return nil, false
}

func (ks *KeySet) sealingKeyByID(kid string) (*sealingKey, bool) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if k := ks.nextSealing; k != nil && k.kid == kid {
		return k, true
	}
	for _, k := range ks.sealing {
		if k.kid == kid {
			return k, true
		}
	}
	return nil, false
}

func newSigningKey(alg jose.SignatureAlgorithm, r io.Reader) (*signingKey, error) {
	var priv crypto.Signer
	switch alg {
	case jose.EdDSA:
		_, k, err := ed25519.GenerateKey(r)
		if err != nil {
			return nil, fmt.Errorf("captoken: generating Ed25519 key: %w", err)
		}
		priv = k
	case jose.ES256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), r)
		if err != nil {
			return nil, fmt.Errorf("captoken: generating P-256 key: %w", err)
		}
		priv = k
	default:
		return nil, fmt.Errorf("%w: unsupported signature algorithm %q", ErrKeySet, alg)
	}
	return signingKeyFromPrivate(alg, priv, "")
}

// signingKeyFromPrivate builds a signing key, computing its RFC 7638 kid.
// A non-empty wantKID must equal the computed one.
func signingKeyFromPrivate(alg jose.SignatureAlgorithm, priv any, wantKID string) (*signingKey, error) {
	if !keyMatchesAlg(alg, priv) {
		return nil, fmt.Errorf("%w: key type does not match algorithm %q", ErrKeySet, alg)
	}
	jwk := jose.JSONWebKey{Key: priv, Algorithm: string(alg), Use: "sig"}
	pub := jwk.Public()
	if !pub.Valid() || !pub.IsPublic() {
		return nil, fmt.Errorf("%w: %s key is not an asymmetric private key", ErrKeySet, alg)
	}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%w: thumbprint: %w", ErrKeySet, err)
	}
	kid := base64.RawURLEncoding.EncodeToString(tp)
	if wantKID != "" && wantKID != kid {
		return nil, fmt.Errorf("%w: kid %q is not the key's RFC 7638 thumbprint", ErrKeySet, wantKID)
	}
	if !keyPairConsistent(priv) {
		return nil, fmt.Errorf("%w: key %q: private part does not match public part", ErrKeySet, kid)
	}
	jwk.KeyID, pub.KeyID = kid, kid
	return &signingKey{kid: kid, alg: alg, private: jwk, public: pub}, nil
}

func keyMatchesAlg(alg jose.SignatureAlgorithm, priv any) bool {
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		return alg == jose.EdDSA && len(k) == ed25519.PrivateKeySize
	case *ecdsa.PrivateKey:
		return alg == jose.ES256 && k.Curve == elliptic.P256()
	}
	return false
}

// keyPairConsistent signs a probe with the private key and verifies it
// with the public key. A loaded JWK's "d" is otherwise never checked
// against its "x"/"y" for EC keys.
func keyPairConsistent(priv any) bool {
	probe := sha256.Sum256([]byte("captoken key pair check"))
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		return ed25519.Verify(k.Public().(ed25519.PublicKey), probe[:], ed25519.Sign(k, probe[:]))
	case *ecdsa.PrivateKey:
		sig, err := ecdsa.SignASN1(rand.Reader, k, probe[:])
		return err == nil && ecdsa.VerifyASN1(&k.PublicKey, probe[:], sig)
	}
	return false
}

func newSealingKey(r io.Reader) (*sealingKey, error) {
	key := make([]byte, sealingKeySize)
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, fmt.Errorf("captoken: reading randomness: %w", err)
	}
	// A random kid rather than a thumbprint: a hash of a secret key has no
	// business in a header every holder can read.
	kid, err := NewID(r, "sk_")
	if err != nil {
		return nil, err
	}
	return &sealingKey{kid: kid, key: key}, nil
}
