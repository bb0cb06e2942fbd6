package a2efront

import (
	"context"
	"errors"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/policy"
)

// A session's accepted capabilities were decided under one policy
// revision. The decision core (enforce.Sessions) re-decides them once per
// session and revision, so a policy reload reaches live sessions at their
// next message; here the front asks the policy its A2E question and puts
// the refusals on the A2E wire.

// negotiated is what s agreed, as the decision core reads it.
func negotiated(s Session) enforce.Negotiated {
	return enforce.Negotiated{Session: s.ID, Operations: s.Accepted, Revision: s.PolicyRevision}
}

// redecide asks pol which of s's accepted capabilities it still allows.
func (f *Front) redecide(s Session) enforce.Redecide {
	return func(ctx context.Context, pol *policy.Policy) []string {
		return pol.DecideA2E(ctx, policy.A2EInput{
			Principal: policy.Principal{ID: s.Principal, Issuer: s.Issuer, Groups: s.Groups},
			Host:      s.Host, Capabilities: s.Accepted, Now: f.deps.Now(),
		}).Allowed
	}
}

// checkCapability refuses a message whose capability the session never
// negotiated, or the policy in force no longer allows. ok is true when the
// message may proceed.
func (f *Front) checkCapability(ctx context.Context, c *call, capability string) (outcome, bool) {
	r, err := f.narrowed.Check(ctx, negotiated(c.sess), capability, f.redecide(c.sess))
	switch {
	case errors.Is(err, enforce.ErrNoPolicy):
		f.deps.Logger.Error("a2efront: no policy loaded; refusing the message")
		return f.unavailable(ctx, c), false
	case err != nil:
		return f.unavailable(ctx, c), false
	case r != nil:
		return f.refuse(ctx, c, a2e.CodeCapabilityMissing, capability, false, r.Message), false
	}
	return outcome{}, true
}
