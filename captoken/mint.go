package captoken

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Mint signs a new capability token with the key set's active signing key.
//
// The caller fills every claim, including fresh ids from NewCapabilityID and
// NewRevocationID; Mint fills only SealedResources, from resources (handle
// → real resource id), whose keys must be exactly c.Handles. Mint refuses a
// claims set that Verify would refuse for structural reasons: a missing
// required claim (ErrMissingClaim), exp not after iat, depth above max
// depth, malformed ids or handles (ErrInvalidClaims), and a token longer
// than MaxTokenSize (ErrTooLarge). It does not look at the clock: minting a
// token that is already expired is the caller's mistake to avoid.
func Mint(ks *KeySet, c Claims, resources map[string]string) (string, error) {
	return mint(ks, &c, resources)
}

// mint is Mint filling c.SealedResources in place.
func mint(ks *KeySet, c *Claims, resources map[string]string) (string, error) {
	if ks == nil || ks.activeSigning() == nil || ks.activeSealing() == nil {
		return "", fmt.Errorf("%w: no keys", ErrKeySet)
	}
	if c.SealedResources != "" {
		return "", fmt.Errorf("%w: srm is filled by Mint, leave it empty", ErrInvalidClaims)
	}
	if err := checkResourceMap(resources, c.Handles); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidClaims, err)
	}
	srm, err := seal(ks, c.CapabilityID, resources)
	if err != nil {
		return "", err
	}
	c.SealedResources = srm
	return sign(ks, c)
}

// sign validates c and signs it with the active signing key.
func sign(ks *KeySet, c *Claims) (string, error) {
	if err := validateClaims(c); err != nil {
		return "", err
	}
	if err := validateText(c); err != nil {
		return "", err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("captoken: encoding claims: %w", err)
	}
	token, err := signCompact(ks.activeSigning(), TokenType, payload)
	if err != nil {
		return "", err
	}
	if len(token) > MaxTokenSize {
		return "", fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(token), MaxTokenSize)
	}
	return token, nil
}

// validateText refuses strings that JSON encoding would silently alter
// (invalid UTF-8 becomes U+FFFD), so the signed claims say exactly what the
// caller passed.
func validateText(c *Claims) error {
	fields := []string{c.Issuer, c.Principal, c.Holder, c.Audience, c.Grant, c.Purpose, c.PolicyRevision}
	for _, s := range slices.Concat(fields, c.Operations) {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: invalid UTF-8 in a claim", ErrInvalidClaims)
		}
	}
	return nil
}
