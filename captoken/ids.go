package captoken

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// Identifier prefixes.
const (
	CapabilityIDPrefix = "cap_"
	RevocationIDPrefix = "rv_"
	HandlePrefix       = "rh_"
)

// idBytes is the number of random bytes behind every identifier (128 bits).
const idBytes = 16

// maxIDLength bounds identifiers accepted in claims, so a claim set cannot
// smuggle unbounded strings through an identifier field.
const maxIDLength = 128

// NewCapabilityID returns a fresh capability id: "cap_" followed by the
// base64url encoding of 128 random bits from crypto/rand.
func NewCapabilityID() string { return mustID(CapabilityIDPrefix) }

// NewRevocationID returns a fresh revocation id: "rv_" + 128 random bits.
func NewRevocationID() string { return mustID(RevocationIDPrefix) }

// NewHandle returns a fresh opaque resource handle: "rh_" + 128 random bits.
func NewHandle() string { return mustID(HandlePrefix) }

// NewID returns prefix followed by the base64url encoding of 128 bits read
// from r (crypto/rand when r is nil). Tests inject a deterministic r.
func NewID(r io.Reader, prefix string) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, idBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("captoken: reading randomness: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

func mustID(prefix string) string {
	// crypto/rand.Read never fails (it crashes the program instead), so
	// NewID with a nil reader cannot return an error.
	id, err := NewID(nil, prefix)
	if err != nil {
		panic(err)
	}
	return id
}

// validID reports whether s has the given prefix, a non-empty suffix, a
// bounded length and only base64url/identifier characters.
func validID(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || rest == "" || len(s) > maxIDLength {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isBase64URL(rest[i]) {
			return false
		}
	}
	return true
}
