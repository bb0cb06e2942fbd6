package a2efront

import (
	"context"
	"log/slog"
)

// Audit events.
const (
	// EventHandshake is logged once per handshake outcome: refused by the
	// gateway, or answered by the host and rewritten.
	EventHandshake = "a2e.handshake"
	// EventRefusal is logged for every message the gateway refuses.
	EventRefusal = "a2e.refusal"
	// EventForgedRecord is logged when a session record fails its MAC:
	// someone wrote it into the store without the gateway's record key.
	EventForgedRecord = "a2e.forged_record"
)

// auditHandshake records a handshake's outcome: who, which host, what was
// requested, accepted and denied (with the policy's own reasons), and the
// policy revision.
func (f *Front) auditHandshake(ctx context.Context, s Session, accepted []string, ok bool, reason string) {
	denied := map[string]string{}
	for c, why := range s.Denied {
		if pr, found := s.PolicyReasons[c]; found {
			why += ": " + pr
		}
		denied[c] = why
	}
	if accepted == nil {
		accepted = []string{}
	}
	f.deps.Audit.LogAttrs(ctx, slog.LevelInfo, EventHandshake,
		slog.String("session", sessionRef(s.ID)), slog.String("host", s.Host), slog.String("principal", s.Principal),
		slog.String("issuer", s.Issuer), slog.Any("requested", s.Requested), slog.Any("forwarded", s.Forwarded),
		slog.Any("accepted", accepted), slog.Any("denied", denied), slog.String("policy_revision", s.PolicyRevision),
		slog.Bool("ok", ok), slog.String("reason", reason))
}

// auditRefusal records a refused message.
func (f *Front) auditRefusal(ctx context.Context, s Session, code, capability, msgType, reqID string) {
	f.deps.Audit.LogAttrs(ctx, slog.LevelInfo, EventRefusal,
		slog.String("session", sessionRef(s.ID)), slog.String("host", s.Host), slog.String("principal", s.Principal),
		slog.String("code", code), slog.String("capability", capability),
		slog.String("type", msgType), slog.String("req_id", reqID))
}
