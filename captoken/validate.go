package captoken

import "fmt"

// validateClaims checks the structure of a claims set: required claims,
// identifier formats and the invariants every capability satisfies. It is
// run by Mint before signing and by Verify after decoding, so a token that
// Verify accepts is always one Mint could have produced. It does not look at
// the clock, the issuer or the audience.
func validateClaims(c *Claims) error {
	if err := requireClaims(c); err != nil {
		return err
	}
	if err := validateIDs(c); err != nil {
		return err
	}
	if err := validateLists(c); err != nil {
		return err
	}
	return validateShape(c)
}

func requireClaims(c *Claims) error {
	required := []struct {
		name    string
		present bool
	}{
		{"iss", c.Issuer != ""},
		{"sub", c.Principal != ""},
		{"hld", c.Holder != ""},
		{"aud", c.Audience != ""},
		{"cid", c.CapabilityID != ""},
		{"grt", c.Grant != ""},
		{"ops", len(c.Operations) > 0},
		{"exp", c.Expiry != 0},
		{"iat", c.IssuedAt != 0},
		{"rid", c.RevocationID != ""},
	}
	for _, r := range required {
		if !r.present {
			return fmt.Errorf("%w: %s", ErrMissingClaim, r.name)
		}
	}
	return nil
}

func validateIDs(c *Claims) error {
	if !validID(c.CapabilityID, CapabilityIDPrefix) {
		return fmt.Errorf("%w: cid %q is not a capability id", ErrInvalidClaims, c.CapabilityID)
	}
	if !validID(c.RevocationID, RevocationIDPrefix) {
		return fmt.Errorf("%w: rid %q is not a revocation id", ErrInvalidClaims, c.RevocationID)
	}
	if c.ParentCapabilityID != "" && !validID(c.ParentCapabilityID, CapabilityIDPrefix) {
		return fmt.Errorf("%w: pcid %q is not a capability id", ErrInvalidClaims, c.ParentCapabilityID)
	}
	for _, a := range c.Ancestors {
		if !validID(a, RevocationIDPrefix) || a == c.RevocationID {
			return fmt.Errorf("%w: anc %q is not an ancestor revocation id", ErrInvalidClaims, a)
		}
	}
	for _, h := range c.Handles {
		if !validID(h, HandlePrefix) {
			return fmt.Errorf("%w: handle %q is not a resource handle", ErrInvalidClaims, h)
		}
	}
	return nil
}

func validateLists(c *Claims) error {
	if dup, ok := firstDuplicate(c.Operations); ok {
		return fmt.Errorf("%w: duplicate operation %q", ErrInvalidClaims, dup)
	}
	for _, op := range c.Operations {
		if op == "" {
			return fmt.Errorf("%w: empty operation", ErrInvalidClaims)
		}
	}
	if dup, ok := firstDuplicate(c.Handles); ok {
		return fmt.Errorf("%w: duplicate handle %q", ErrInvalidClaims, dup)
	}
	if dup, ok := firstDuplicate(c.Ancestors); ok {
		return fmt.Errorf("%w: duplicate ancestor %q", ErrInvalidClaims, dup)
	}
	return nil
}

func validateShape(c *Claims) error {
	switch {
	case c.Expiry <= c.IssuedAt:
		return fmt.Errorf("%w: exp must be after iat", ErrInvalidClaims)
	case c.NotBefore != 0 && c.NotBefore >= c.Expiry:
		return fmt.Errorf("%w: nbf must be before exp", ErrInvalidClaims)
	case c.Depth < 0 || c.MaxDepth < 0:
		return fmt.Errorf("%w: negative depth", ErrInvalidClaims)
	case c.Depth > c.MaxDepth:
		return fmt.Errorf("%w: depth %d above max depth %d", ErrInvalidClaims, c.Depth, c.MaxDepth)
	case len(c.Ancestors) != c.Depth:
		return fmt.Errorf("%w: %d ancestors at depth %d", ErrInvalidClaims, len(c.Ancestors), c.Depth)
	case (c.Depth == 0) != (c.ParentCapabilityID == ""):
		return fmt.Errorf("%w: pcid must be set exactly when depth > 0", ErrInvalidClaims)
	case (len(c.Handles) == 0) != (c.SealedResources == ""):
		return fmt.Errorf("%w: srm must be present exactly when handles are", ErrInvalidClaims)
	}
	return nil
}

func firstDuplicate(xs []string) (string, bool) {
	seen := make(map[string]struct{}, len(xs))
	for _, x := range xs {
		if _, ok := seen[x]; ok {
			return x, true
		}
		seen[x] = struct{}{}
	}
	return "", false
}
