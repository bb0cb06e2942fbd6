package authn

import (
	"crypto/sha256"
	"crypto/subtle"
	"slices"
)

// devKeySet finds the principal of a dev API key by the key's SHA-256. Only
// hashes are held, so a leaked config or heap dump does not reveal keys.
type devKeySet struct {
	byHash map[[sha256.Size]byte]devKeyEntry
}

type devKeyEntry struct {
	sum       [sha256.Size]byte
	principal Principal
}

// newDevKeySet builds the set from validated keys.
func newDevKeySet(keys []DevKey) (*devKeySet, error) {
	s := &devKeySet{byHash: make(map[[sha256.Size]byte]devKeyEntry, len(keys))}
	for _, k := range keys {
		sum, err := parseHash(k.Hash)
		if err != nil {
			return nil, err
		}
		s.byHash[sum] = devKeyEntry{sum: sum, principal: Principal{
			ID:     k.Principal,
			Issuer: DevIssuer,
			Groups: slices.Clone(k.Groups),
		}}
	}
	return s, nil
}

// authenticate returns a fresh copy of the principal owning key, or
// ErrInvalidCredentials. The lookup is by hash, so its timing depends only
// on the digest, never on how much of a real key was guessed; the final
// match is still compared in constant time.
func (s *devKeySet) authenticate(key string) (*Principal, error) {
	sum := sha256.Sum256([]byte(key))
	e, ok := s.byHash[sum]
	if !ok || subtle.ConstantTimeCompare(e.sum[:], sum[:]) != 1 {
		return nil, invalid("unknown dev key")
	}
	return e.principal.clone(), nil
}
