package a2efront

import (
	"context"
	"errors"
	"maps"

	"github.com/capgate/capgate/gateway/a2e"
)

// maxRewriteRetries bounds the compare-and-swap retries of a rewrite.
const maxRewriteRetries = 3

// rewriteHandshake turns the host's handshake/resp into the caller's:
// accepted_caps lists every requested capability, enabled only where the
// host enabled it AND the gateway forwarded it; session_id is the
// gateway's; max_parallel is capped by Config.MaxParallel. The outcome is
// recorded in the session before the caller sees it. A handshake/resp
// that answers no pending handshake is dropped (nil). When the outcome
// cannot be recorded, the caller gets ok:false server_error: the gateway
// never announces what it could not enforce.
func (f *Front) rewriteHandshake(ctx context.Context, h *upstream, id string, m a2e.Message) []byte {
	resp := m.Body.(*a2e.HandshakeResp)
	var (
		s   Session
		err error
		out *a2e.HandshakeResp
	)
	for range maxRewriteRetries {
		s, err = f.deps.Sessions.Get(ctx, id)
		if err != nil {
			break
		}
		if s.State != StateHandshaking || resp.ReqID != s.HandshakeID {
			f.deps.Logger.Warn("a2efront: dropping a handshake/resp that answers no pending handshake",
				"session", sessionRef(id), "req_id", resp.ReqID, "state", s.State)
			return nil
		}
		var next Session
		out, next = f.negotiated(s, resp)
		if _, err = f.deps.Sessions.Update(ctx, next); !errors.Is(err, ErrConflict) {
			break
		}
	}
	if err != nil {
		f.deps.Logger.Error("a2efront: recording a handshake outcome", "session", sessionRef(id), "error", err)
		s.ID, s.Host = id, h.Name
		out = &a2e.HandshakeResp{ReqID: resp.ReqID, SessionID: id, AcceptedCaps: disabledCaps(s), Reason: a2e.ReasonServerError}
	}
	f.auditHandshake(ctx, s, enabledNames(out.AcceptedCaps), out.OK, out.Reason)
	env := a2e.NewEnvelope("", newID(), f.deps.Now(), s.VersionKey, s.Version)
	if s.VersionKey == "" {
		env = a2e.NewEnvelope("", newID(), f.deps.Now(), m.Key, m.Version)
	}
	line, err := a2e.Encode(env, out)
	if err != nil {
		f.deps.Logger.Error("a2efront: encoding handshake/resp", "error", err)
		return nil
	}
	return line
}

// negotiated computes the caller's handshake/resp and the session record
// that enforces it.
func (f *Front) negotiated(s Session, resp *a2e.HandshakeResp) (*a2e.HandshakeResp, Session) {
	hostCaps := map[string]a2e.Capability{}
	for _, c := range resp.AcceptedCaps {
		if _, dup := hostCaps[c.Capability]; !dup {
			hostCaps[c.Capability] = c
		}
	}
	out := &a2e.HandshakeResp{ReqID: resp.ReqID, SessionID: s.ID, AcceptedCaps: make([]a2e.Capability, 0, len(s.Requested))}
	var accepted []string
	for _, name := range s.Requested {
		c := decideCap(name, s, resp.OK, hostCaps)
		if c.Enabled {
			accepted = append(accepted, name)
		}
		out.AcceptedCaps = append(out.AcceptedCaps, c)
	}
	out.OK = resp.OK && len(accepted) > 0
	switch {
	case !resp.OK && resp.Reason == a2e.ReasonAuthFailed:
		// The host refused the gateway's own secret: not the caller's fault.
		out.Reason = a2e.ReasonServerError
	case !resp.OK:
		out.Reason = resp.Reason
	case !out.OK:
		out.Reason = a2e.ReasonNoCaps
	}
	next := s
	next.HandshakeID = ""
	if !out.OK {
		next.State = StateNew
		if next.Attempts >= f.cfg.MaxHandshakeAttempts {
			next.State = StateClosed
		}
		return out, next
	}
	out.MaxParallel = resp.MaxParallel
	if out.MaxParallel <= 0 {
		out.MaxParallel = a2e.DefaultMaxParallel
	}
	if f.cfg.MaxParallel > 0 {
		out.MaxParallel = min(out.MaxParallel, f.cfg.MaxParallel)
	}
	next.State, next.Accepted, next.MaxParallel = StateReady, accepted, out.MaxParallel
	next.ExpiresAt = s.CreatedAt.Add(f.cfg.SessionTTL)
	return out, next
}

// decideCap is one entry of the caller's accepted_caps.
func decideCap(name string, s Session, hostOK bool, hostCaps map[string]a2e.Capability) a2e.Capability {
	if why, denied := s.Denied[name]; denied {
		return a2e.Capability{Capability: name, Metadata: map[string]any{"reason": why}}
	}
	hc, found := hostCaps[name]
	md := maps.Clone(hc.Metadata)
	if md == nil {
		md = map[string]any{}
	}
	if found && hc.Enabled && hostOK {
		delete(md, "reason")
		return a2e.Capability{Capability: name, Enabled: true, Metadata: md}
	}
	if r, ok := md["reason"].(string); !ok || r == "" {
		md["reason"] = ReasonNotEnabled
	}
	return a2e.Capability{Capability: name, Metadata: md}
}

func enabledNames(caps []a2e.Capability) []string {
	var out []string
	for _, c := range caps {
		if c.Enabled {
			out = append(out, c.Capability)
		}
	}
	return out
}
