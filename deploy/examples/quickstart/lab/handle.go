package lab

import (
	"crypto/subtle"

	"github.com/capgate/capgate/gateway/a2e"
)

// handle answers one decoded message.
func (h *Host) handle(s *Session, m a2e.Message) {
	if m.Type == a2e.TypeHandshakeReq {
		h.handshake(s, m)
		return
	}
	capability, always := a2e.CapabilityFor(m.Type)
	handshaken, accepted := s.accepted(capability)
	switch {
	case !handshaken:
		h.refuse(s, m.Envelope, "", a2e.CodeUnauthorized, "handshake first", false)
	case m.Type == a2e.TypePing:
		h.emit(s, m.Envelope, &a2e.Pong{ReqID: m.ID})
	case m.Type == a2e.TypeShutdown:
		h.endSession(s)
	case always:
		// pong, error, invoke/event and handshake/resp need no answer.
	case !accepted:
		h.refuse(s, m.Envelope, capability, a2e.CodeCapabilityMissing, "capability "+capability+" was not negotiated", false)
	case !a2e.IsRequest(m.Type):
		h.refuse(s, m.Envelope, "", a2e.CodeInvalidMessage, "the host accepts only requests in "+capability, false)
	case !s.acquire(h.opts.MaxParallel):
		h.refuse(s, m.Envelope, "", a2e.CodeTooManyRequests, "max_parallel requests are in flight", true)
	default:
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer s.release()
			h.emit(s, m.Envelope, h.dispatch(s, m))
		}()
	}
}

// handshake negotiates the session's capabilities.
func (h *Host) handshake(s *Session, m a2e.Message) {
	req := m.Body.(*a2e.HandshakeReq)
	resp := &a2e.HandshakeResp{ReqID: m.ID, SessionID: s.ID, MaxParallel: h.opts.MaxParallel}
	s.mu.Lock()
	already := s.handshaken
	s.mu.Unlock()
	switch {
	case already:
		h.refuse(s, m.Envelope, "", a2e.CodeInvalidMessage, "the session already completed its handshake", false)
		return
	case m.Version != h.opts.Version:
		resp.Reason = a2e.ReasonVersionMismatch
	case subtle.ConstantTimeCompare([]byte(req.AuthToken), []byte(h.opts.AuthToken)) != 1:
		resp.Reason = a2e.ReasonAuthFailed
	default:
		resp.AcceptedCaps = h.registry.Negotiate(req.AgentCaps)
		caps := map[string]bool{}
		for _, c := range resp.AcceptedCaps {
			if c.Enabled {
				caps[c.Capability] = true
			}
		}
		if resp.OK = len(caps) > 0; !resp.OK {
			resp.Reason = a2e.ReasonNoCaps
		}
		s.mu.Lock()
		s.handshaken, s.caps, s.key, s.version = resp.OK, caps, m.Key, m.Version
		s.mu.Unlock()
	}
	h.opts.Logger.Info("lab: handshake", "session", s.ID, "agent", req.AgentID, "ok", resp.OK, "reason", resp.Reason)
	h.emit(s, m.Envelope, resp)
}

// dispatch runs m through the plugins Dispatch orders, and returns the
// first answer. tool/list/req merges the lists of every tools plugin.
func (h *Host) dispatch(s *Session, m a2e.Message) a2e.Body {
	plugins := h.registry.Dispatch(m.Type)
	if m.Type == a2e.TypeToolListReq {
		return listTools(m, plugins)
	}
	for _, p := range plugins {
		if resp, handled := p.Handle(s.ctx, s, m); handled {
			return resp
		}
	}
	return &a2e.Error{ReqID: m.ID, Code: a2e.CodeNotFound, Message: "no plugin handles this " + m.Type}
}

// listTools merges the tool lists of plugins in dispatch order; a name
// listed twice is served by the first plugin.
func listTools(m a2e.Message, plugins []Plugin) a2e.Body {
	resp := &a2e.ToolListResp{ReqID: m.ID, Tools: []a2e.ToolInfo{}}
	seen := map[string]bool{}
	for _, p := range plugins {
		tp, ok := p.(interface{ List() []a2e.ToolInfo })
		if !ok {
			continue
		}
		for _, t := range tp.List() {
			if !seen[t.Name] {
				seen[t.Name] = true
				resp.Tools = append(resp.Tools, t)
			}
		}
	}
	return resp
}
