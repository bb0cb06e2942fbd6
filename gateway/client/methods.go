package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/capgate/capgate/gateway/sep"
)

// The SEP extension methods the client calls.
const (
	MethodRequest   = sep.MethodRequest
	MethodAttenuate = sep.MethodAttenuate
	MethodRevoke    = sep.MethodRevoke
	MethodInvoke    = sep.MethodInvoke
)

// Request asks for task-scoped capabilities (a2a/capabilities/request) and
// returns them, one per granted grant. What is issued is what the grant
// permits ∩ what p asks for ∩ what policy allows the caller; when that is
// empty the answer is an *RPCError matching ErrGrantDenied, never an empty
// list. When the policy wants a human to approve first, nothing is issued
// and the error is a *PendingError (matching ErrApprovalPending) carrying
// the approval id to follow with ApprovalStatus and Redeem.
func (c *Client) Request(ctx context.Context, p RequestParams) ([]Capability, error) {
	if len(p.Grants) == 0 {
		return nil, fmt.Errorf("%w: Request needs at least one grant", ErrInvalidArgument)
	}
	raw, err := c.call(ctx, MethodRequest, sep.RequestParams{
		Grants: p.Grants, Purpose: p.Purpose, ResourceQuery: p.ResourceQuery,
		Operations: p.Operations, Expires: timePtr(p.Expires),
	})
	if err != nil {
		return nil, err
	}
	return issuedOrPending(raw)
}

// Invoke calls skill with args under capb (a2a/skill/invoke), sending its
// capabilityId and its token, and returns the skill's raw result. Resources
// are named by handle: put a handle in args["resourceHandle"] (or a list in
// args["resourceHandles"]); the gateway rewrites them to the real ids.
// args may be nil.
func (c *Client) Invoke(ctx context.Context, capb Capability, skill string, args map[string]any) (json.RawMessage, error) {
	if skill == "" {
		return nil, fmt.Errorf("%w: Invoke needs a skill", ErrInvalidArgument)
	}
	if capb.ID == "" {
		return nil, fmt.Errorf("%w: Invoke needs a capability id", ErrInvalidArgument)
	}
	if args == nil {
		args = map[string]any{}
	}
	return c.call(ctx, MethodInvoke, wireInvoke{
		Skill: skill, Arguments: args, CapabilityID: capb.ID, CapabilityToken: capb.Token,
	})
}

// Attenuate asks for a narrower copy of capb (a2a/capabilities/attenuate).
// The child is held by the caller; its revocation ids include capb's, so
// revoking capb also kills it. A constraint that would widen capb, or a
// grant that is not attenuable, is an *RPCError matching
// ErrAttenuationNotPermitted.
func (c *Client) Attenuate(ctx context.Context, capb Capability, cons Constraints) (Capability, error) {
	if capb.ID == "" {
		return Capability{}, fmt.Errorf("%w: Attenuate needs a capability id", ErrInvalidArgument)
	}
	raw, err := c.call(ctx, MethodAttenuate, sep.AttenuateParams{
		CapabilityID: capb.ID, CapabilityToken: capb.Token, Constraints: cons.wire(),
	})
	if err != nil {
		return Capability{}, err
	}
	var res sep.CapabilitiesResult
	if err := decodeResult(MethodAttenuate, raw, &res); err != nil {
		return Capability{}, err
	}
	if len(res.Capabilities) != 1 {
		return Capability{}, fmt.Errorf("%w: %s returned %d capabilities, want 1", ErrMalformedResponse, MethodAttenuate, len(res.Capabilities))
	}
	child := res.Capabilities[0]
	if err := checkIssued(child); err != nil {
		return Capability{}, err
	}
	return child, nil
}

// Revoke revokes capb and, with it, every capability attenuated or
// delegated from it (a2a/capabilities/revoke). Only its holder or the
// principal it acts for may revoke it. A nil error means the gateway
// confirmed the revocation; a store outage is an *RPCError matching
// ErrRevocationUnavailable, and then nothing was revoked.
func (c *Client) Revoke(ctx context.Context, capb Capability) error {
	if capb.ID == "" {
		return fmt.Errorf("%w: Revoke needs a capability id", ErrInvalidArgument)
	}
	raw, err := c.call(ctx, MethodRevoke, sep.RevokeParams{CapabilityID: capb.ID, CapabilityToken: capb.Token})
	if err != nil {
		return err
	}
	var res sep.RevokeResult
	if err := decodeResult(MethodRevoke, raw, &res); err != nil {
		return err
	}
	if !res.Revoked || res.CapabilityID != capb.ID {
		return fmt.Errorf("%w: %s did not confirm revoking %s", ErrMalformedResponse, MethodRevoke, capb.ID)
	}
	return nil
}

// checkIssued refuses an issued capability without the members every later
// call needs.
func checkIssued(capb Capability) error {
	if capb.ID == "" || capb.Token == "" {
		return fmt.Errorf("%w: an issued capability lacks its id or token", ErrMalformedResponse)
	}
	return nil
}
