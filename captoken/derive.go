package captoken

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
)

// DerivedKeySize is the length of a key returned by DeriveKey.
const DerivedKeySize = 32

// DeriveKey derives a 32-byte secret for another use of the key set's
// material (HKDF-SHA256, info naming the use), so that the gateway needs
// no second secret to configure. It derives from the oldest sealing key
// still in the set: rotation leaves the derived key unchanged, and every
// replica holding the same key file derives the same key, even during a
// rolling restart. The derived key changes when Prune removes that key.
func (ks *KeySet) DeriveKey(info string) ([]byte, error) {
	if info == "" {
		return nil, fmt.Errorf("%w: empty derivation label", ErrKeySet)
	}
	ks.mu.RLock()
	var secret []byte
	if n := len(ks.sealing); n > 0 {
		secret = ks.sealing[n-1].key
	}
	ks.mu.RUnlock()
	if secret == nil {
		return nil, fmt.Errorf("%w: no keys", ErrKeySet)
	}
	return hkdf.Key(sha256.New, secret, nil, info, DerivedKeySize)
}
