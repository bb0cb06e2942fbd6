package a2efront

import (
	"context"
	"slices"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/policy"
)

// narrowCache remembers, for the policy revision in force, which of each
// session's accepted capabilities that policy still allows. A new
// revision empties it.
type narrowCache struct {
	mu       sync.Mutex
	revision string
	allowed  map[string][]string // session id → capabilities still allowed
}

// inForce returns the session's capabilities the policy in force still
// allows: Accepted itself when the policy that decided the handshake is
// still in force, else Accepted narrowed by the current policy, decided
// once per session and revision. A policy reload therefore reaches live
// sessions at their next message. No policy at all is an error.
func (f *Front) inForce(ctx context.Context, s Session) ([]string, bool) {
	pol := f.deps.Policy.Current()
	if pol == nil {
		return nil, false
	}
	rev := pol.Revision()
	if rev == s.PolicyRevision {
		return s.Accepted, true
	}
	nc := &f.narrowed
	nc.mu.Lock()
	if nc.revision != rev {
		nc.revision, nc.allowed = rev, map[string][]string{}
	}
	got, ok := nc.allowed[s.ID]
	nc.mu.Unlock()
	if ok {
		return got, true
	}
	d := pol.DecideA2E(ctx, policy.A2EInput{
		Principal: policy.Principal{ID: s.Principal, Issuer: s.Issuer, Groups: s.Groups},
		Host:      s.Host, Capabilities: s.Accepted, Now: f.deps.Now(),
	})
	got = slices.DeleteFunc(slices.Clone(s.Accepted), func(c string) bool { return !slices.Contains(d.Allowed, c) })
	nc.mu.Lock()
	defer nc.mu.Unlock()
	if nc.revision == rev && ctx.Err() == nil {
		if len(nc.allowed) >= f.cfg.MaxSessions {
			clear(nc.allowed)
		}
		nc.allowed[s.ID] = got
	}
	return got, true
}

// checkCapability refuses a message whose capability the session never
// negotiated, or the policy in force no longer allows. ok is true when the
// message may proceed.
func (f *Front) checkCapability(ctx context.Context, c *call, capability string) (outcome, bool) {
	if !slices.Contains(c.sess.Accepted, capability) {
		return f.refuse(ctx, c, a2e.CodeCapabilityMissing, capability, false, "capability "+capability+" was not negotiated"), false
	}
	allowed, ok := f.inForce(ctx, c.sess)
	switch {
	case !ok:
		f.deps.Logger.Error("a2efront: no policy loaded; refusing the message")
		return f.unavailable(ctx, c), false
	case !slices.Contains(allowed, capability):
		return f.refuse(ctx, c, a2e.CodeCapabilityMissing, capability, false, "capability "+capability+" is no longer allowed by policy"), false
	}
	return outcome{}, true
}
