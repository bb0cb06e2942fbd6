package authn

import (
	"errors"
	"fmt"
)

// ErrNoCredentials reports that the caller presented no credential at all:
// no Authorization header, or an empty bearer token. The caller should be
// challenged, not told its credential is bad.
var ErrNoCredentials = errors.New("authn: no credentials")

// ErrInvalidCredentials reports that a credential was presented and refused:
// an unknown dev key, a bad signature, an expired or not-yet-valid token, a
// wrong audience or issuer, a disallowed algorithm, a malformed token, an
// unsupported authorization scheme, or a token that names no usable principal.
var ErrInvalidCredentials = errors.New("authn: invalid credentials")

// ErrUnknownIssuer reports a JWT whose (unverified) iss claim names no
// configured issuer. It wraps ErrInvalidCredentials, so
// errors.Is(err, ErrInvalidCredentials) is also true.
var ErrUnknownIssuer = fmt.Errorf("%w: unknown issuer", ErrInvalidCredentials)

// ErrTokenExpired reports a JWT whose exp lies in the past. It wraps
// ErrInvalidCredentials, so errors.Is(err, ErrInvalidCredentials) is also
// true.
var ErrTokenExpired = fmt.Errorf("%w: token expired", ErrInvalidCredentials)

// ErrIssuerUnavailable reports a technical failure: the issuer's discovery
// document or key set could not be fetched, or the caller's context ended
// while waiting for them. It is NOT an invalid credential, and it never
// authenticates anyone: callers must fail closed, typically with HTTP 503.
var ErrIssuerUnavailable = errors.New("authn: issuer unavailable")

// ErrInvalidConfig reports configuration that Validate or New refuses. The
// joined error lists every problem, each prefixed by its field path.
var ErrInvalidConfig = errors.New("authn: invalid config")
