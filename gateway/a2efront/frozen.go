package a2efront

import (
	"context"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/gateway/freeze"
)

// frozenRefusal refuses a message of a session whose host or principal
// an operator froze (package freeze): capability_missing, saying what is
// frozen; a freeze list that cannot answer refuses as unavailable
// (retryable). ok is true when the message may proceed.
func (f *Front) frozenRefusal(ctx context.Context, c *call) (outcome, bool) {
	e, err := f.frozen(ctx, c)
	switch {
	case err != nil:
		f.deps.Logger.Warn("a2efront: freeze list unavailable; refusing the message", "error", err)
		return f.unavailable(ctx, c), false
	case e != nil:
		return f.refuse(ctx, c, a2e.CodeCapabilityMissing, "", false,
			"the "+string(e.Kind)+" "+e.Name+" is frozen by an operator"), false
	}
	return outcome{}, true
}

// frozen returns the entry that freezes the call's host or its session's
// principal, nil when neither is frozen.
func (f *Front) frozen(ctx context.Context, c *call) (*freeze.Entry, error) {
	if f.deps.Frozen == nil {
		return nil, nil
	}
	return f.deps.Frozen.Check(ctx, c.host.Name, c.sess.Principal)
}

// frozenEvent decides whether a session's stream may carry the host's
// next event. Once the host or the session's principal is frozen, stop
// is true and refusal is what the caller reads in the event's place: the
// error a message of the session gets (capability_missing, saying what is
// frozen); a freeze list that cannot answer ends the stream too, as
// unavailable (retryable). The set answers from this replica's memory:
// no round trip per event.
func (f *Front) frozenEvent(ctx context.Context, h *upstream, s Session) (refusal []byte, stop bool) {
	if f.deps.Frozen == nil {
		return nil, false
	}
	var body *a2e.Error
	switch e, err := f.deps.Frozen.Check(ctx, h.Name, s.Principal); {
	case err != nil:
		f.deps.Logger.Warn("a2efront: freeze list unavailable; ending the stream", "session", sessionRef(s.ID), "error", err)
		body = &a2e.Error{Code: a2e.CodeUnavailable, Message: "the freeze list is unavailable", Retryable: true}
	case e != nil:
		body = &a2e.Error{Code: a2e.CodeCapabilityMissing, Message: "the " + string(e.Kind) + " " + e.Name + " is frozen by an operator"}
	default:
		return nil, false
	}
	f.auditRefusal(ctx, s, body.Code, "", "stream", "")
	line, err := a2e.Encode(f.replyEnvelope(h, s, a2e.Envelope{}), body)
	if err != nil {
		f.deps.Logger.Error("a2efront: encoding the refusal that ends a stream", "session", sessionRef(s.ID), "error", err)
		return nil, true
	}
	return line, true
}
