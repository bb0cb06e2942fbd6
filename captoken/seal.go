package captoken

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-jose/go-jose/v4"
)

// sealCIDHeader binds a sealed map to its capability: the JWE protected
// header (authenticated by AES-GCM) carries the capability id, and Unseal
// refuses a map whose id differs from the claims'.
const sealCIDHeader jose.HeaderKey = "cid"

// seal encrypts the handle → resource-id map with the active sealing key
// (dir + A256GCM, kid in the protected header). An empty map seals to "".
func seal(ks *KeySet, cid string, resources map[string]string) (string, error) {
	if len(resources) == 0 {
		return "", nil
	}
	k := ks.activeSealing()
	opts := (&jose.EncrypterOptions{}).WithHeader(sealCIDHeader, cid)
	enc, err := jose.NewEncrypter(jose.A256GCM, jose.Recipient{Algorithm: jose.DIRECT, Key: k.key, KeyID: k.kid}, opts)
	if err != nil {
		return "", fmt.Errorf("captoken: sealing resource map: %w", err)
	}
	plain, err := json.Marshal(resources)
	if err != nil {
		return "", fmt.Errorf("captoken: sealing resource map: %w", err)
	}
	obj, err := enc.Encrypt(plain)
	if err != nil {
		return "", fmt.Errorf("captoken: sealing resource map: %w", err)
	}
	return obj.CompactSerialize()
}

// unseal opens c's sealed resource map with ks's sealing keys. The map must
// be bound to c's capability id and hold exactly c's handles.
func unseal(ks *KeySet, c *Claims) (map[string]string, error) {
	if c.SealedResources == "" {
		if len(c.Handles) != 0 {
			return nil, fmt.Errorf("%w: handles without a sealed map", ErrSealedMap)
		}
		return map[string]string{}, nil
	}
	obj, err := jose.ParseEncryptedCompact(c.SealedResources, []jose.KeyAlgorithm{jose.DIRECT}, []jose.ContentEncryption{jose.A256GCM})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSealedMap, err)
	}
	k, ok := ks.sealingKeyByID(obj.Header.KeyID)
	if !ok {
		return nil, fmt.Errorf("%w: unknown sealing key %q", ErrSealedMap, obj.Header.KeyID)
	}
	plain, err := obj.Decrypt(k.key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSealedMap, err)
	}
	if cid, _ := obj.Header.ExtraHeaders[sealCIDHeader].(string); cid != c.CapabilityID {
		return nil, fmt.Errorf("%w: sealed for another capability", ErrSealedMap)
	}
	return decodeResourceMap(plain, c.Handles)
}

func decodeResourceMap(plain []byte, handles []string) (map[string]string, error) {
	var m map[string]string
	dec := json.NewDecoder(bytes.NewReader(plain))
	if err := dec.Decode(&m); err != nil || dec.More() {
		return nil, fmt.Errorf("%w: undecodable map", ErrSealedMap)
	}
	if err := checkResourceMap(m, handles); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSealedMap, err)
	}
	return m, nil
}

// checkResourceMap reports whether m maps exactly the given handles, each to
// a non-empty resource id.
func checkResourceMap(m map[string]string, handles []string) error {
	if len(m) != len(handles) {
		return fmt.Errorf("resource map has %d entries for %d handles", len(m), len(handles))
	}
	for h, id := range m {
		if !slices.Contains(handles, h) {
			return fmt.Errorf("resource map entry %q is not a handle of the capability", h)
		}
		if id == "" {
			return fmt.Errorf("resource map entry %q has an empty resource id", h)
		}
	}
	return nil
}
