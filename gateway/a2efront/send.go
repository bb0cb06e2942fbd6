package a2efront

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/capgate/capgate/gateway/a2e"
)

// call is one /send being handled.
type call struct {
	host *upstream
	sess Session
	msg  a2e.Message // zero when the line did not decode
}

// outcome is the HTTP answer to a /send.
type outcome struct {
	status int
	body   any
}

// sendReply is the body of a 202: ok when the message was forwarded,
// otherwise the code of the refusal delivered on the stream.
type sendReply struct {
	OK   bool   `json:"ok"`
	Code string `json:"code,omitempty"`
}

// forwarded is the answer to a message handed to the host.
func forwarded() outcome { return outcome{http.StatusAccepted, sendReply{OK: true}} }

// serveSend answers POST /a2e/{host}/send: one NDJSON line for the
// session named by X-Session-Id. Protocol answers (refusals, handshake
// results) go on the session's stream; the HTTP status only reports the
// transport.
func (f *Front) serveSend(w http.ResponseWriter, r *http.Request) {
	h, sess, ctx, ok := f.sessionFor(w, r)
	if !ok {
		return
	}
	c := &call{host: h, sess: sess}
	line, err := io.ReadAll(io.LimitReader(r.Body, int64(f.cfg.MaxLineBytes)+3))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, transportError{Error: "unreadable_body"})
		return
	}
	m, err := a2e.DecodeLine(line, f.cfg.MaxLineBytes)
	var out outcome
	if err != nil {
		out = f.refuseLine(ctx, c, err)
	} else {
		c.msg = m
		out = f.dispatch(ctx, c)
	}
	writeJSON(w, out.status, out.body)
}

// refuseLine answers a line that did not decode.
func (f *Front) refuseLine(ctx context.Context, c *call, err error) outcome {
	switch {
	case errors.Is(err, a2e.ErrTooLarge):
		out := f.refuse(ctx, c, a2e.CodeMessageTooLarge, "", false, err.Error())
		if out.status == http.StatusAccepted {
			out = outcome{http.StatusRequestEntityTooLarge, transportError{Error: a2e.CodeMessageTooLarge, Message: err.Error()}}
		}
		return out
	case errors.Is(err, a2e.ErrParse):
		return f.refuse(ctx, c, a2e.CodeParseError, "", false, err.Error())
	}
	return f.refuse(ctx, c, a2e.CodeInvalidMessage, "", false, err.Error())
}

// dispatch is the enforcement chain for one decoded message.
func (f *Front) dispatch(ctx context.Context, c *call) outcome {
	m := c.msg
	switch {
	case m.Type == a2e.TypeHandshakeReq:
		return f.handshake(ctx, c)
	case m.Type == a2e.TypeHandshakeResp:
		return f.refuse(ctx, c, a2e.CodeInvalidMessage, "", false, "handshake/resp is sent by the host")
	case c.sess.State != StateReady:
		return f.refuse(ctx, c, a2e.CodeUnauthorized, "", false, "complete the handshake first")
	}
	if m.Type != a2e.TypeShutdown {
		if out, ok := f.frozenRefusal(ctx, c); !ok {
			return out
		}
	}
	capability, always := a2e.CapabilityFor(m.Type)
	if !always {
		if out, ok := f.checkCapability(ctx, c, capability); !ok {
			return out
		}
	}
	admitted := false
	if a2e.IsRequest(m.Type) {
		if out, ok := f.admit(ctx, c); !ok {
			return out
		}
		admitted = true
	}
	err := f.sendUpstream(ctx, c.host, c.sess.UpstreamID, m.Raw)
	if err != nil {
		return f.upstreamFailed(ctx, c, admitted, err)
	}
	if m.Type == a2e.TypeShutdown {
		if err := f.deps.Sessions.Delete(context.WithoutCancel(ctx), c.sess.ID); err != nil {
			f.deps.Logger.Warn("a2efront: deleting a shut-down session", "session", sessionRef(c.sess.ID), "error", err)
		}
	}
	return forwarded()
}

// admit puts a request in flight within the session's max_parallel.
func (f *Front) admit(ctx context.Context, c *call) (outcome, bool) {
	deadline := f.deps.Now().Add(f.cfg.RequestTimeout)
	adm, err := f.deps.Sessions.Admit(ctx, c.sess.ID, c.msg.ID, c.sess.MaxParallel, deadline)
	switch {
	case err != nil:
		f.deps.Logger.Error("a2efront: admitting a request", "session", sessionRef(c.sess.ID), "error", err)
		return f.unavailable(ctx, c), false
	case adm == Full:
		return f.refuse(ctx, c, a2e.CodeTooManyRequests, "", true, "max_parallel requests are in flight"), false
	case adm == Duplicate:
		return f.refuse(ctx, c, a2e.CodeInvalidMessage, "", false, "a request with this id is already in flight"), false
	}
	return outcome{}, true
}

// upstreamFailed answers a message the host could not take.
func (f *Front) upstreamFailed(ctx context.Context, c *call, admitted bool, err error) outcome {
	f.deps.Logger.Warn("a2efront: forwarding to the host", "host", c.host.Name, "session", sessionRef(c.sess.ID), "error", err)
	if admitted {
		if _, cerr := f.deps.Sessions.Complete(context.WithoutCancel(ctx), c.sess.ID, c.msg.ID); cerr != nil {
			f.deps.Logger.Warn("a2efront: releasing a request", "session", sessionRef(c.sess.ID), "error", cerr)
		}
	}
	gone := errors.Is(err, ErrUpstreamSessionGone)
	out := f.refuse(ctx, c, a2e.CodeUpstreamError, "", !gone, "the host did not accept the message")
	if out.status == http.StatusAccepted {
		out = outcome{http.StatusBadGateway, transportError{Error: a2e.CodeUpstreamError, Retryable: !gone}}
	}
	return out
}

// refuse delivers an A2E error for the call on the session's stream,
// audits it, and returns the HTTP answer: 202 with the code, or 503 when
// the error could not be delivered.
func (f *Front) refuse(ctx context.Context, c *call, code, capability string, retryable bool, msg string) outcome {
	f.auditRefusal(ctx, c.sess, code, capability, c.msg.Type, c.msg.ID)
	body := &a2e.Error{ReqID: c.msg.ID, Code: code, Message: msg, Retryable: retryable, CapabilityName: capability}
	if err := f.publish(ctx, c, body); err != nil {
		return f.unavailable(ctx, c)
	}
	return outcome{http.StatusAccepted, sendReply{Code: code}}
}

// unavailable answers a store failure: nothing was forwarded, and the
// caller may retry.
func (f *Front) unavailable(ctx context.Context, c *call) outcome {
	f.auditRefusal(ctx, c.sess, a2e.CodeUnavailable, "", c.msg.Type, c.msg.ID)
	return outcome{http.StatusServiceUnavailable, transportError{Error: a2e.CodeUnavailable, Retryable: true}}
}

// publish encodes body as the gateway's reply to the call and queues it
// for the session's stream.
func (f *Front) publish(ctx context.Context, c *call, body a2e.Body) error {
	line, err := a2e.Encode(f.replyEnvelope(c.host, c.sess, c.msg.Envelope), body)
	if err == nil {
		err = f.deps.Sessions.Publish(ctx, c.sess.ID, line)
	}
	if err != nil {
		f.deps.Logger.Error("a2efront: delivering a gateway message", "session", sessionRef(c.sess.ID), "error", err)
	}
	return err
}

// replyEnvelope spells the version as the caller did: as in its
// handshake/req once there was one, else as in the message answered,
// else as "a2e" with the host's version.
func (f *Front) replyEnvelope(h *upstream, s Session, in a2e.Envelope) a2e.Envelope {
	now := f.deps.Now()
	switch {
	case s.VersionKey != "":
		return a2e.NewEnvelope("", newID(), now, s.VersionKey, s.Version)
	case in.Key != "":
		return a2e.NewEnvelope("", newID(), now, in.Key, in.Version)
	}
	return a2e.NewEnvelope("", newID(), now, a2e.KeyA2E, h.Version)
}
