package captoken

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Constraints narrow a capability. An empty (or nil) list or a zero time
// keeps the parent's value; anything given must lie within the parent.
type Constraints struct {
	// Operations for the child; a subset of the parent's.
	Operations []string
	// Handles for the child; a subset of the parent's.
	Handles []string
	// Expires for the child; not after the parent's expiry (truncated to
	// whole seconds before comparison).
	Expires time.Time
}

// AttenuateOptions are the gateway-side inputs of an attenuation.
type AttenuateOptions struct {
	// Holder of the child (the delegatee agent); empty keeps the parent's.
	Holder string
	// MaxDepth is the policy's delegation-depth cap. The child's max depth
	// is min(parent max depth, MaxDepth); MaxDepth <= 0 applies no cap
	// beyond the parent's own, which can never be raised.
	MaxDepth int
	// Now is the issue time of the child. Required.
	Now time.Time
	// Purpose of the child, for audit; empty keeps the parent's.
	Purpose string
	// Rand is the source of the child's ids; crypto/rand when nil.
	Rand io.Reader
}

// Attenuate mints a child of parent that can do no more than the parent:
// operations and handles are subsets, the expiry is not later, the depth is
// parent depth + 1 within min(parent max depth, opts.MaxDepth), and the
// resource map is the parent's filtered to the child's handles, re-sealed.
// The child gets fresh capability and revocation ids, pcid = the parent's
// cid, and anc = parent anc + parent rid, so revoking any ancestor revokes
// it. The parent is never modified.
//
// parent MUST come from v.Verify and MUST have passed the caller's
// revocation check. ks signs the child; v opens the parent's sealed map.
// Refusals match ErrAttenuationDenied: ErrNotAttenuable, ErrDepthExceeded,
// ErrNotSubset (wrapped with "operations", "handles" or "expiry"), or
// ErrExpiryNotAfterNow.
// ErrExpired when the parent is expired at opts.Now.
func Attenuate(ks *KeySet, v *Verifier, parent *Claims, c Constraints, opts AttenuateOptions) (string, *Claims, error) {
	if ks == nil || v == nil || parent == nil || opts.Now.IsZero() {
		return "", nil, fmt.Errorf("%w: Attenuate needs a key set, a verifier, a parent and a time", ErrConfig)
	}
	child, err := narrow(parent, c, opts)
	if err != nil {
		return "", nil, err
	}
	resources, err := v.Unseal(parent)
	if err != nil {
		return "", nil, err
	}
	for h := range resources {
		if !child.HasHandle(h) {
			delete(resources, h)
		}
	}
	if child.CapabilityID, err = NewID(opts.Rand, CapabilityIDPrefix); err != nil {
		return "", nil, err
	}
	if child.RevocationID, err = NewID(opts.Rand, RevocationIDPrefix); err != nil {
		return "", nil, err
	}
	token, err := mint(ks, child, resources)
	if err != nil {
		return "", nil, err
	}
	return token, child, nil
}

// narrow computes the child's claims (without ids or sealed map), refusing
// anything that would widen the parent.
func narrow(parent *Claims, c Constraints, opts AttenuateOptions) (*Claims, error) {
	if !parent.Attenuable {
		return nil, fmt.Errorf("%w: %s", ErrNotAttenuable, parent.CapabilityID)
	}
	now := NewNumericDate(opts.Now)
	if now >= parent.Expiry {
		return nil, fmt.Errorf("%w: parent %s", ErrExpired, parent.CapabilityID)
	}
	maxDepth := parent.MaxDepth
	if opts.MaxDepth > 0 && opts.MaxDepth < maxDepth {
		maxDepth = opts.MaxDepth
	}
	if parent.Depth+1 > maxDepth {
		return nil, fmt.Errorf("%w: depth %d, cap %d", ErrDepthExceeded, parent.Depth+1, maxDepth)
	}
	ops, err := subset("operations", parent.Operations, c.Operations)
	if err != nil {
		return nil, err
	}
	handles, err := subset("handles", parent.Handles, c.Handles)
	if err != nil {
		return nil, err
	}
	exp, err := narrowExpiry(parent.Expiry, c.Expires, now)
	if err != nil {
		return nil, err
	}
	child := parent.Clone()
	child.ParentCapabilityID = parent.CapabilityID
	child.CapabilityID, child.RevocationID, child.SealedResources = "", "", ""
	child.Ancestors = append(slices.Clone(parent.Ancestors), parent.RevocationID)
	child.Depth, child.MaxDepth = parent.Depth+1, maxDepth
	child.Operations, child.Handles = ops, handles
	child.Expiry, child.IssuedAt = exp, now
	if opts.Holder != "" {
		child.Holder = opts.Holder
	}
	if opts.Purpose != "" {
		child.Purpose = opts.Purpose
	}
	return child, nil
}

// subset returns want (deduplicated) if every element is in have, or a copy
// of have when want is empty.
func subset(what string, have, want []string) ([]string, error) {
	if len(want) == 0 {
		return slices.Clone(have), nil
	}
	out := make([]string, 0, len(want))
	for _, w := range want {
		if !slices.Contains(have, w) {
			return nil, fmt.Errorf("%w: %s: %q is not in the parent", ErrNotSubset, what, w)
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

func narrowExpiry(parent NumericDate, want time.Time, now NumericDate) (NumericDate, error) {
	if want.IsZero() {
		return parent, nil
	}
	exp := NewNumericDate(want)
	if exp > parent {
		return 0, fmt.Errorf("%w: expiry: %s is after the parent's %s", ErrNotSubset,
			exp.Time().Format(time.RFC3339), parent.Time().Format(time.RFC3339))
	}
	if exp <= now {
		return 0, fmt.Errorf("%w: expiry %s", ErrExpiryNotAfterNow, exp.Time().Format(time.RFC3339))
	}
	return exp, nil
}
