package a2efront

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/policy"
)

// Reasons shown in accepted_caps metadata.reason for a capability the
// gateway did not forward.
const (
	ReasonDeniedByPolicy = "denied by policy"
	ReasonNoPlugin       = "no plugin loaded"
	ReasonNotEnabled     = "not enabled by host"
)

// handshake authenticates a handshake/req, narrows agent_caps to policy
// and to what the host offers, records the pending negotiation, and
// forwards the request with the host's own auth_token. Every refusal is a
// handshake/resp with ok:false on the stream; nothing refused reaches the
// host.
func (f *Front) handshake(ctx context.Context, c *call) outcome {
	req := c.msg.Body.(*a2e.HandshakeReq)
	if c.sess.State != StateNew {
		return f.refuse(ctx, c, a2e.CodeInvalidMessage, "", false, "the session's handshake is done or in progress")
	}
	c.sess.Attempts++
	c.sess.VersionKey, c.sess.Version = c.msg.Key, c.msg.Version
	if c.msg.Version != c.host.Version {
		return f.rejectHandshake(ctx, c, a2e.ReasonVersionMismatch, nil)
	}
	p, err := f.deps.Authenticate(ctx, req.AuthToken)
	switch {
	case errors.Is(err, authn.ErrIssuerUnavailable):
		f.deps.Logger.Error("a2efront: authenticating a handshake", "error", err)
		return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
	case err != nil || p == nil:
		return f.rejectHandshake(ctx, c, a2e.ReasonAuthFailed, nil)
	}
	if caller := callerOf(ctx); caller != nil && (caller.ID != p.ID || caller.Issuer != p.Issuer) {
		// The request's own credentials name someone else.
		return f.rejectHandshake(ctx, c, a2e.ReasonAuthFailed, nil)
	}
	c.sess.Principal, c.sess.Issuer, c.sess.Groups = p.ID, p.Issuer, slices.Clone(p.Groups)
	switch e, err := f.frozen(ctx, c); {
	case err != nil:
		f.deps.Logger.Warn("a2efront: freeze list unavailable; refusing the handshake", "error", err)
		return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
	case e != nil:
		return f.rejectHandshake(ctx, c, a2e.ReasonNoCaps, nil) // frozen by an operator
	}
	caps := dedupe(req.AgentCaps)
	if len(caps) > MaxAgentCaps {
		return f.rejectHandshake(ctx, c, a2e.ReasonNoCaps, nil)
	}
	pol := f.deps.Policy.Current()
	if pol == nil {
		f.deps.Logger.Error("a2efront: no policy loaded; refusing the handshake")
		return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
	}
	in := policy.A2EInput{
		Principal: policy.Principal{ID: p.ID, Issuer: p.Issuer, Groups: p.Groups, Claims: p.Claims},
		Host:      c.host.Name, Capabilities: caps, Now: f.deps.Now(),
	}
	d := pol.DecideA2E(ctx, in)
	f.shadow(ctx, in, d)
	c.sess.Requested, c.sess.PolicyRevision, c.sess.PolicyReasons = caps, d.Revision, d.Denied
	c.sess.Forwarded, c.sess.Denied = narrow(caps, d.Allowed, c.host.offered)
	if len(c.sess.Forwarded) == 0 {
		return f.rejectHandshake(ctx, c, a2e.ReasonNoCaps, disabledCaps(c.sess))
	}
	return f.forwardHandshake(ctx, c)
}

// forwardHandshake records the pending negotiation (claiming the session,
// so two concurrent handshakes cannot both proceed) and forwards the
// rewritten handshake/req.
func (f *Front) forwardHandshake(ctx context.Context, c *call) outcome {
	line, err := c.msg.Rewrite(map[string]any{"auth_token": c.host.AuthToken, "agent_caps": c.sess.Forwarded})
	if err != nil {
		f.deps.Logger.Error("a2efront: rewriting handshake/req", "error", err)
		return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
	}
	pending := c.sess
	if pending.UpstreamID == "" {
		// The first authenticated handshake opens the host's session.
		if pending.UpstreamID, err = f.createUpstream(ctx, c.host); err != nil {
			f.deps.Logger.Warn("a2efront: opening the host's session", "host", c.host.Name, "error", err)
			return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
		}
	}
	pending.State, pending.HandshakeID = StateHandshaking, c.msg.ID
	saved, err := f.deps.Sessions.Update(ctx, pending)
	switch {
	case errors.Is(err, ErrConflict):
		return f.refuse(ctx, c, a2e.CodeInvalidMessage, "", false, "the session's handshake is done or in progress")
	case err != nil:
		f.deps.Logger.Error("a2efront: recording a handshake", "session", sessionRef(c.sess.ID), "error", err)
		return f.unavailable(ctx, c)
	}
	c.sess = saved
	if err := f.deps.Sessions.Publish(ctx, c.sess.ID, attachMarker); err != nil {
		f.deps.Logger.Error("a2efront: waking the session's stream", "session", sessionRef(c.sess.ID), "error", err)
		return f.unavailable(ctx, c)
	}
	if err := f.sendUpstream(ctx, c.host, c.sess.UpstreamID, line); err != nil {
		f.deps.Logger.Warn("a2efront: forwarding handshake/req", "host", c.host.Name, "error", err)
		return f.rejectHandshake(ctx, c, a2e.ReasonServerError, nil)
	}
	return forwarded()
}

// rejectHandshake answers a handshake/req with ok:false, counts the
// attempt (closing the session after MaxHandshakeAttempts) and audits it.
func (f *Front) rejectHandshake(ctx context.Context, c *call, reason string, caps []a2e.Capability) outcome {
	next := c.sess
	next.State, next.HandshakeID = StateNew, ""
	if next.Attempts >= f.cfg.MaxHandshakeAttempts {
		next.State = StateClosed
	}
	if _, err := f.deps.Sessions.Update(ctx, next); err != nil && !errors.Is(err, ErrConflict) {
		f.deps.Logger.Error("a2efront: recording a refused handshake", "session", sessionRef(c.sess.ID), "error", err)
		return f.unavailable(ctx, c)
	}
	f.auditHandshake(ctx, c.sess, nil, false, reason)
	resp := &a2e.HandshakeResp{ReqID: c.msg.ID, SessionID: c.sess.ID, AcceptedCaps: caps, OK: false, Reason: reason}
	if err := f.publish(ctx, c, resp); err != nil {
		return f.unavailable(ctx, c)
	}
	return outcome{http.StatusAccepted, sendReply{Code: reason}}
}

// narrow splits the requested capabilities into those to forward (allowed
// by policy and offered by the host) and the reasons for the others. A
// capability the host does not offer is "no plugin loaded" even when the
// policy also denies it: nobody could have it.
func narrow(requested, allowed []string, offered map[string]bool) ([]string, map[string]string) {
	var fwd []string
	denied := map[string]string{}
	for _, c := range requested {
		switch {
		case offered != nil && !offered[c]:
			denied[c] = ReasonNoPlugin
		case !slices.Contains(allowed, c):
			denied[c] = ReasonDeniedByPolicy
		default:
			fwd = append(fwd, c)
		}
	}
	return fwd, denied
}

// disabledCaps lists every requested capability as disabled, with its
// reason.
func disabledCaps(s Session) []a2e.Capability {
	out := make([]a2e.Capability, 0, len(s.Requested))
	for _, c := range s.Requested {
		why := s.Denied[c]
		if why == "" {
			why = ReasonNotEnabled
		}
		out = append(out, a2e.Capability{Capability: c, Metadata: map[string]any{"reason": why}})
	}
	return out
}

// dedupe returns caps without repeats, in first-seen order.
func dedupe(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
		if len(out) > MaxAgentCaps {
			break
		}
	}
	return out
}
