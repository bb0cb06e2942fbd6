package captoken

import "errors"

// classedError is a sentinel that also matches a grouping sentinel, so a
// caller can test for a family ("is this token invalid?") with one
// errors.Is, while still telling members apart.
type classedError struct {
	msg   string
	class error
}

// Error returns the sentinel's message.
func (e *classedError) Error() string { return e.msg }

// Is reports whether target is the family this sentinel belongs to.
func (e *classedError) Is(target error) bool { return target == e.class }

// ErrInvalid groups every verification failure that is not about time. Every
// error returned by Verify, except ErrExpired and ErrNotYetValid, matches it:
// the gateway maps ErrInvalid to "capability_invalid" and
// ErrExpired/ErrNotYetValid to "capability_expired".
var ErrInvalid = errors.New("captoken: invalid capability token")

// Members of the ErrInvalid family.
var (
	// ErrMalformed: the token is not a compact JWS with a strictly
	// well-formed header and claims set.
	ErrMalformed error = &classedError{"captoken: malformed token", ErrInvalid}
	// ErrTooLarge: the token exceeds MaxTokenSize; it was not parsed.
	ErrTooLarge error = &classedError{"captoken: token too large", ErrInvalid}
	// ErrAlgorithm: the "alg" header is not in the verifier's explicit list,
	// or does not match the algorithm of the key named by "kid".
	ErrAlgorithm error = &classedError{"captoken: signature algorithm not accepted", ErrInvalid}
	// ErrForbiddenHeader: the header carries a parameter other than alg, kid
	// and typ (for example jwk, jku, x5u, x5c or crit). Keys are never taken
	// from a token.
	ErrForbiddenHeader error = &classedError{"captoken: forbidden header parameter", ErrInvalid}
	// ErrWrongType: the "typ" header is not "cap+jwt".
	ErrWrongType error = &classedError{"captoken: wrong token type", ErrInvalid}
	// ErrUnknownKey: the "kid" header names no key of the key set.
	ErrUnknownKey error = &classedError{"captoken: unknown key id", ErrInvalid}
	// ErrInvalidSignature: the signature does not verify with the named key.
	ErrInvalidSignature error = &classedError{"captoken: invalid signature", ErrInvalid}
	// ErrMissingClaim: a required claim is absent or empty.
	ErrMissingClaim error = &classedError{"captoken: missing required claim", ErrInvalid}
	// ErrInvalidClaims: the claims are present but inconsistent (exp not
	// after iat, depth above its maximum, handles not matching the sealed
	// map, a malformed identifier...).
	ErrInvalidClaims error = &classedError{"captoken: invalid claims", ErrInvalid}
	// ErrWrongIssuer: "iss" differs from the verifier's configured issuer.
	ErrWrongIssuer error = &classedError{"captoken: wrong issuer", ErrInvalid}
	// ErrWrongAudience: "aud" differs from the expected audience.
	ErrWrongAudience error = &classedError{"captoken: wrong audience", ErrInvalid}
	// ErrSealedMap: the sealed resource map cannot be opened (unknown or
	// pruned sealing key, tampering, or a map that does not match the
	// claims).
	ErrSealedMap error = &classedError{"captoken: sealed resource map invalid", ErrInvalid}
	// ErrUnknownHandle: the handle is not one of the capability's handles.
	ErrUnknownHandle error = &classedError{"captoken: unknown resource handle", ErrInvalid}
)

// Time failures. They do NOT match ErrInvalid.
var (
	// ErrExpired: the token's "exp" has passed (leeway included).
	ErrExpired = errors.New("captoken: token expired")
	// ErrNotYetValid: "nbf" or "iat" lies in the future (leeway included).
	ErrNotYetValid = errors.New("captoken: token not yet valid")
)

// ErrAttenuationDenied groups the reasons an attenuation is refused; the
// gateway maps it to "attenuation_not_permitted".
var ErrAttenuationDenied = errors.New("captoken: attenuation not permitted")

// Members of the ErrAttenuationDenied family.
var (
	// ErrNotSubset: the requested child would widen the parent. The wrapping
	// error says which part: operations, handles or expiry.
	ErrNotSubset error = &classedError{"captoken: attenuation is not a subset of the parent", ErrAttenuationDenied}
	// ErrNotAttenuable: the parent capability is marked attenuable: false.
	ErrNotAttenuable error = &classedError{"captoken: capability is not attenuable", ErrAttenuationDenied}
	// ErrDepthExceeded: the child would exceed the maximum delegation depth.
	ErrDepthExceeded error = &classedError{"captoken: delegation depth exceeded", ErrAttenuationDenied}
	// ErrExpiryNotAfterNow: the requested expiry is not at least one whole
	// second after now (token times are whole seconds), so the child would
	// be born expired.
	ErrExpiryNotAfterNow error = &classedError{"captoken: requested expiry is not after now", ErrAttenuationDenied}
)

// Configuration and key-material errors.
var (
	// ErrConfig: a VerifierConfig or option is unusable (no algorithms, an
	// unsupported algorithm, an empty issuer...).
	ErrConfig = errors.New("captoken: invalid configuration")
	// ErrKeySet: a key set is unusable (no active key, duplicate kids,
	// unsupported algorithm, kid not matching its key...).
	ErrKeySet = errors.New("captoken: invalid key set")
	// ErrKeyFilePermissions: a key file is readable or writable by group or
	// others.
	ErrKeyFilePermissions = errors.New("captoken: key file permissions too open")
)
