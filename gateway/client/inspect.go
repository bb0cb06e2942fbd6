package client

import (
	"fmt"

	"github.com/capgate/capgate/captoken"
)

// UnsafeInspect decodes a capability token's claims WITHOUT verifying its
// signature, issuer, audience, expiry or revocation. Anyone can write a
// token that says anything: use the result for display and debugging only
// (what does this token claim, when does it expire, which handles does it
// name), never to decide what a caller may do. Only the gateway decides.
// The sealed resource map stays sealed.
func UnsafeInspect(token string) (*captoken.Claims, error) {
	claims, _, err := captoken.UnsafeClaimsWithoutVerification(token)
	if err != nil {
		return nil, fmt.Errorf("client: inspect token: %w", err)
	}
	return claims, nil
}
