package recordseal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// MinKeyBytes is the shortest key a Sealer accepts.
const MinKeyBytes = 32

// ErrShortKey means a key is shorter than MinKeyBytes.
var ErrShortKey = errors.New("recordseal: key too short")

// Sealer computes and checks the MACs of records under one key.
type Sealer struct {
	key []byte
}

// New returns a Sealer under key, which it copies.
func New(key []byte) (*Sealer, error) {
	if len(key) < MinKeyBytes {
		return nil, fmt.Errorf("%w: %d bytes, want at least %d", ErrShortKey, len(key), MinKeyBytes)
	}
	return &Sealer{key: append([]byte(nil), key...)}, nil
}

// MAC returns the MAC of record, which must encode as JSON, with the
// fields the MAC does not cover cleared by the caller.
func (s *Sealer) MAC(record any) (string, error) {
	b, err := json.Marshal(record)
	if err != nil {
		return "", fmt.Errorf("recordseal: encoding the record: %w", err)
	}
	h := hmac.New(sha256.New, s.key)
	h.Write(b)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)), nil
}

// Verify reports, in constant time, whether mac is record's MAC. A record
// that does not encode never verifies.
func (s *Sealer) Verify(record any, mac string) bool {
	want, err := s.MAC(record)
	return err == nil && hmac.Equal([]byte(want), []byte(mac))
}
