package captoken

import (
	"errors"
	"slices"
	"strconv"
	"time"
)

// Claims is the claims set of a capability token. The JSON names are short
// because the token travels in headers; they are part of the wire contract.
// Display names of resources are not in the token: the gateway keeps them.
type Claims struct {
	// Issuer is the gateway that minted the token ("iss").
	Issuer string `json:"iss"`
	// Principal is the user on whose behalf the capability acts ("sub").
	Principal string `json:"sub"`
	// Holder is the only caller allowed to present the token ("hld").
	Holder string `json:"hld"`
	// Audience is the agent the capability is for ("aud", a single string).
	Audience string `json:"aud"`
	// CapabilityID is the random "cap_…" id ("cid").
	CapabilityID string `json:"cid"`
	// ParentCapabilityID is the id of the capability this one was attenuated
	// from; empty for a root capability ("pcid").
	ParentCapabilityID string `json:"pcid,omitempty"`
	// Grant is the grant the capability was issued under ("grt").
	Grant string `json:"grt"`
	// Operations are the operations the capability authorises ("ops").
	// They match literally: "*" is not a wildcard here.
	Operations []string `json:"ops"`
	// Handles are the opaque resource handles it designates ("rhs").
	Handles []string `json:"rhs,omitempty"`
	// Expiry is the time from which the token is refused ("exp").
	Expiry NumericDate `json:"exp"`
	// NotBefore is the time before which the token is refused ("nbf").
	NotBefore NumericDate `json:"nbf,omitempty"`
	// IssuedAt is the minting time ("iat").
	IssuedAt NumericDate `json:"iat"`
	// RevocationID is this capability's own revocation id ("rid").
	RevocationID string `json:"rid"`
	// Ancestors are the revocation ids of every ancestor, root first ("anc").
	Ancestors []string `json:"anc,omitempty"`
	// Depth is the delegation depth: 0 for a root capability ("dep").
	Depth int `json:"dep"`
	// MaxDepth is the deepest delegation allowed ("mdp").
	MaxDepth int `json:"mdp"`
	// Purpose is the declared purpose, for audit ("pur").
	Purpose string `json:"pur,omitempty"`
	// Attenuable says whether the capability may be attenuated ("att").
	Attenuable bool `json:"att"`
	// PolicyRevision is the policy revision that allowed it ("prv").
	PolicyRevision string `json:"prv,omitempty"`
	// SealedResources is the handle → resource-id map as a compact JWE
	// (dir + A256GCM) that only the gateway can open ("srm").
	SealedResources string `json:"srm,omitempty"`
}

// RevocationIDs returns the capability's own revocation id followed by the
// revocation ids of all its ancestors (root first). A caller must refuse the
// capability if any of them is revoked.
func (c *Claims) RevocationIDs() []string {
	out := make([]string, 0, len(c.Ancestors)+1)
	out = append(out, c.RevocationID)
	return append(out, c.Ancestors...)
}

// HasOperation reports whether op is one of the capability's operations.
// The match is exact: "*" authorises only an operation literally named "*".
func (c *Claims) HasOperation(op string) bool { return slices.Contains(c.Operations, op) }

// HasHandle reports whether h is one of the capability's resource handles.
func (c *Claims) HasHandle(h string) bool { return slices.Contains(c.Handles, h) }

// Clone returns a deep copy of c.
func (c *Claims) Clone() *Claims {
	out := *c
	out.Operations = slices.Clone(c.Operations)
	out.Handles = slices.Clone(c.Handles)
	out.Ancestors = slices.Clone(c.Ancestors)
	return &out
}

// maxNumericDate is 9999-12-31T23:59:59Z: far beyond any real token, far
// below any overflow in time.Unix.
const maxNumericDate = 253402300799

// errNumericDate is returned for a NumericDate that is not a whole,
// non-negative number of seconds up to year 9999.
var errNumericDate = errors.New("captoken: NumericDate must be whole seconds between 1970 and 9999")

// NumericDate is a JWT NumericDate: whole seconds since the Unix epoch. It
// decodes only non-negative JSON integers up to year 9999; fractions,
// exponents, strings and negative values are refused.
type NumericDate int64

// NewNumericDate returns t truncated to whole seconds; zero for a zero time.
func NewNumericDate(t time.Time) NumericDate {
	if t.IsZero() {
		return 0
	}
	return NumericDate(t.Unix())
}

// Time returns the date as a time.Time (UTC); the zero time for 0.
func (n NumericDate) Time() time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(int64(n), 0).UTC()
}

// MarshalJSON encodes the date as a JSON integer.
func (n NumericDate) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// UnmarshalJSON decodes a JSON integer, refusing anything else.
func (n *NumericDate) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || len(b) > 12 || (len(b) > 1 && b[0] == '0') {
		return errNumericDate
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return errNumericDate
		}
		v = v*10 + int64(c-'0')
	}
	if v > maxNumericDate {
		return errNumericDate
	}
	*n = NumericDate(v)
	return nil
}
