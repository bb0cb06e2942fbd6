package captoken

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Key file versions. Save writes version 1, the original format, unless
// keys are published; then it writes version 2, whose rings have a "next"
// member, so that a gateway too old to know published keys refuses the
// file instead of ignoring them. LoadKeySet reads both.
const (
	keyFileVersion       = 1
	keyFileVersionStaged = 2
)

// maxKeyFileSize bounds what LoadKeySet reads.
const maxKeyFileSize = 1 << 20

// keyFile is the on-disk form of a KeySet: private JWKs, active first.
type keyFile struct {
	Version int     `json:"version"`
	Signing keyRing `json:"signing"`
	Sealing keyRing `json:"sealing"`
}

type keyRing struct {
	Active *jose.JSONWebKey `json:"active"`
	// Next is the published key: it verifies but does not sign yet.
	Next     *jose.JSONWebKey `json:"next,omitempty"`
	Previous []retiredKey     `json:"previous,omitempty"`
}

type retiredKey struct {
	Key     *jose.JSONWebKey `json:"key"`
	Retired time.Time        `json:"retired"`
}

// Save writes the key set as JSON containing PRIVATE keys. Whoever reads
// the output can mint capabilities: write it only to a file of mode 0600
// (SaveFile does).
func (ks *KeySet) Save(w io.Writer) error {
	ks.mu.RLock()
	kf := keyFile{Version: keyFileVersion}
	for i, k := range ks.signing {
		jwk := k.private
		addKey(&kf.Signing, i, &jwk, k.retired)
	}
	for i, k := range ks.sealing {
		addKey(&kf.Sealing, i, sealingJWK(k), k.retired)
	}
	if ks.nextSigning != nil {
		kf.Version = keyFileVersionStaged
		jwk := ks.nextSigning.private
		kf.Signing.Next = &jwk
		kf.Sealing.Next = sealingJWK(ks.nextSealing)
	}
	ks.mu.RUnlock()
	b, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return fmt.Errorf("captoken: encoding key set: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func sealingJWK(k *sealingKey) *jose.JSONWebKey {
	return &jose.JSONWebKey{Key: k.key, KeyID: k.kid, Algorithm: string(jose.DIRECT), Use: "enc"}
}

func addKey(r *keyRing, i int, jwk *jose.JSONWebKey, retired time.Time) {
	if i == 0 {
		r.Active = jwk
		return
	}
	r.Previous = append(r.Previous, retiredKey{Key: jwk, Retired: retired.UTC()})
}

// SaveFile writes the key set to path atomically: a temporary file of mode
// 0600 in the same directory, synced, then renamed over path.
func (ks *KeySet) SaveFile(path string) (err error) {
	var buf bytes.Buffer
	if err := ks.Save(&buf); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary file's name means nothing to the reader
		}
		return fmt.Errorf("captoken: writing key file %s: directory %s: %w", path, dir, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err == nil {
		if _, err = tmp.Write(buf.Bytes()); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("captoken: writing key file: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("captoken: writing key file: %w", err)
	}
	return nil
}

// LoadKeySetFile reads a key file written by SaveFile. It refuses a file
// that group or others may read or write (ErrKeyFilePermissions), besides
// everything LoadKeySet refuses.
func LoadKeySetFile(path string) (*KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("captoken: opening key file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("captoken: opening key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKeySet, path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o, want 0600 or stricter", ErrKeyFilePermissions, path, perm)
	}
	return LoadKeySet(f)
}

// LoadKeySet reads a key set written by Save. It refuses unknown fields, a
// missing active key, duplicate kids, unsupported algorithms, a signing kid
// that is not the key's RFC 7638 thumbprint, and sealing keys that are not
// 256-bit symmetric keys.
func LoadKeySet(r io.Reader) (*KeySet, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("captoken: reading key set: %w", err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("%w: key file larger than %d bytes", ErrKeySet, maxKeyFileSize)
	}
	var kf keyFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&kf); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeySet, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data", ErrKeySet)
	}
	switch {
	case kf.Version != keyFileVersion && kf.Version != keyFileVersionStaged:
		return nil, fmt.Errorf("%w: unsupported version %d", ErrKeySet, kf.Version)
	case (kf.Signing.Next == nil) != (kf.Sealing.Next == nil):
		return nil, fmt.Errorf("%w: a published signing key needs a published sealing key and vice versa", ErrKeySet)
	case kf.Version == keyFileVersion && kf.Signing.Next != nil:
		return nil, fmt.Errorf("%w: published keys need version %d", ErrKeySet, keyFileVersionStaged)
	}
	return keySetFromFile(&kf)
}

func keySetFromFile(kf *keyFile) (*KeySet, error) {
	if kf.Signing.Active == nil || kf.Sealing.Active == nil {
		return nil, fmt.Errorf("%w: no active signing or sealing key", ErrKeySet)
	}
	ks := &KeySet{rand: rand.Reader}
	seen := map[string]bool{}
	for i, jwk := range ringKeys(&kf.Signing) {
		k, err := loadSigningKey(jwk.key)
		if err != nil {
			return nil, err
		}
		if err := checkRetired(i, jwk.retired, k.kid, seen); err != nil {
			return nil, err
		}
		k.retired = jwk.retired
		ks.signing = append(ks.signing, k)
	}
	for i, jwk := range ringKeys(&kf.Sealing) {
		k, err := loadSealingKey(jwk.key)
		if err != nil {
			return nil, err
		}
		if err := checkRetired(i, jwk.retired, k.kid, seen); err != nil {
			return nil, err
		}
		k.retired = jwk.retired
		ks.sealing = append(ks.sealing, k)
	}
	return ks, loadNext(ks, kf, seen)
}

// loadNext loads the published keys, if any.
func loadNext(ks *KeySet, kf *keyFile, seen map[string]bool) error {
	if kf.Signing.Next == nil {
		return nil
	}
	sk, err := loadSigningKey(kf.Signing.Next)
	if err != nil {
		return err
	}
	ek, err := loadSealingKey(kf.Sealing.Next)
	if err != nil {
		return err
	}
	for _, kid := range []string{sk.kid, ek.kid} {
		if err := checkRetired(0, time.Time{}, kid, seen); err != nil {
			return err
		}
	}
	ks.nextSigning, ks.nextSealing = sk, ek
	return nil
}

type loadedKey struct {
	key     *jose.JSONWebKey
	retired time.Time
}

func ringKeys(r *keyRing) []loadedKey {
	out := []loadedKey{{key: r.Active}}
	for _, p := range r.Previous {
		out = append(out, loadedKey{key: p.Key, retired: p.Retired})
	}
	return out
}

func checkRetired(i int, retired time.Time, kid string, seen map[string]bool) error {
	if seen[kid] {
		return fmt.Errorf("%w: duplicate kid %q", ErrKeySet, kid)
	}
	seen[kid] = true
	if i > 0 && retired.IsZero() {
		return fmt.Errorf("%w: previous key %q has no retirement time", ErrKeySet, kid)
	}
	return nil
}

func loadSigningKey(jwk *jose.JSONWebKey) (*signingKey, error) {
	if jwk == nil || jwk.KeyID == "" {
		return nil, fmt.Errorf("%w: signing key without kid", ErrKeySet)
	}
	alg := jose.SignatureAlgorithm(jwk.Algorithm)
	if alg != jose.EdDSA && alg != jose.ES256 {
		return nil, fmt.Errorf("%w: signing key %q has unsupported alg %q", ErrKeySet, jwk.KeyID, jwk.Algorithm)
	}
	if jwk.IsPublic() {
		return nil, fmt.Errorf("%w: signing key %q has no private part", ErrKeySet, jwk.KeyID)
	}
	return signingKeyFromPrivate(alg, jwk.Key, jwk.KeyID)
}

func loadSealingKey(jwk *jose.JSONWebKey) (*sealingKey, error) {
	if jwk == nil || jwk.KeyID == "" {
		return nil, fmt.Errorf("%w: sealing key without kid", ErrKeySet)
	}
	if jwk.Algorithm != string(jose.DIRECT) {
		return nil, fmt.Errorf("%w: sealing key %q has unsupported alg %q", ErrKeySet, jwk.KeyID, jwk.Algorithm)
	}
	key, ok := jwk.Key.([]byte)
	if !ok || len(key) != sealingKeySize {
		return nil, fmt.Errorf("%w: sealing key %q is not a 256-bit symmetric key", ErrKeySet, jwk.KeyID)
	}
	return &sealingKey{kid: jwk.KeyID, key: bytes.Clone(key)}, nil
}
