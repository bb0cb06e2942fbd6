package enforce

import (
	"context"

	"github.com/capgate/capgate/captoken"
)

// Request is what a call presents and what it wants to do.
type Request struct {
	// Holder is the authenticated caller's principal id; it must be the
	// capability's holder.
	Holder string
	// Audience is the agent or server the call is addressed to; the
	// capability must be for it. Empty accepts any fronted target.
	Audience string
	// CapabilityID and Token are what the caller presented: an id, a
	// token, or both (which must then agree).
	CapabilityID, Token string
	// Operation is the operation the call performs; empty checks none.
	Operation string
}

// Scope is the capability a call was allowed under: its verified claims
// and its opened handle → resource-id map.
type Scope struct {
	Claims    *captoken.Claims
	Resources ResourceMap
}

// Decide runs every check of a capability-bearing call, in order: found
// and verified, held by the caller, not revoked, covering the operation,
// and its resource map opened. It returns the scope the call may proceed
// under, or the refusal of the first check that failed. The claims are
// returned whenever the capability was verified and held, refused or not,
// so that the audit can name it.
func (k *Checker) Decide(ctx context.Context, q Request) (*captoken.Claims, *Scope, *Refusal) {
	claims, _, r := k.Usable(ctx, q.Holder, q.Audience, q.CapabilityID, q.Token)
	if r != nil {
		return nil, nil, r
	}
	if q.Operation != "" {
		if r := CheckOperation(claims, q.Operation); r != nil {
			return claims, nil, r
		}
	}
	s, r := k.Open(claims)
	if r != nil {
		return claims, nil, r
	}
	return claims, s, nil
}

// Open opens a verified capability's resource map, once per capability
// (the checker caches it), and returns the scope it defines.
func (k *Checker) Open(claims *captoken.Claims) (*Scope, *Refusal) {
	resources, err := k.unsealed.open(k.deps.Verifier, claims)
	if err != nil {
		return nil, refuse(CapabilityInvalid, "capability invalid", nil)
	}
	return &Scope{Claims: claims, Resources: resources}, nil
}

// CheckHolder refuses a caller that is not the capability's holder.
func CheckHolder(c *captoken.Claims, holder string) *Refusal {
	if c.Holder != holder {
		return refuse(HolderMismatch, "the caller is not the holder of this capability", nil)
	}
	return nil
}

// CheckOperation refuses an operation the capability does not permit.
func CheckOperation(c *captoken.Claims, op string) *Refusal {
	if !c.HasOperation(op) {
		return refuse(OperationNotPermitted, "operation "+op+" is not in the capability",
			map[string]any{"operation": op, "allowed": c.Operations})
	}
	return nil
}
