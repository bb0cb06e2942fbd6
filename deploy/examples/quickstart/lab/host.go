package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/capgate/capgate/gateway/a2e"
)

// SessionHeader carries the session id on /send and /stream.
const SessionHeader = "X-Session-Id"

// Host is the lab A2E host. Create it with New; serve Handler.
type Host struct {
	opts     Options
	registry *CapabilityRegistry
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*Session
}

// New validates opts and returns a host with opts.Plugins (or the
// quickstart plugins) loaded.
func New(opts Options) (*Host, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	reg, err := NewCapabilityRegistry(opts.Plugins...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Host{opts: opts, registry: reg, ctx: ctx, cancel: cancel, sessions: map[string]*Session{}}, nil
}

// Handler returns the HTTP transport: POST /session, POST /send and
// GET /stream.
func (h *Host) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", h.serveSession)
	mux.HandleFunc("POST /send", h.serveSend)
	mux.HandleFunc("GET /stream", h.serveStream)
	return mux
}

// Recorder returns the recorder of every /send line.
func (h *Host) Recorder() *Recorder { return h.opts.Recorder }

// Close ends every session and stream and waits for running requests.
func (h *Host) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

func (h *Host) serveSession(w http.ResponseWriter, _ *http.Request) {
	id, now := newID(), h.opts.Now()
	h.mu.Lock()
	for sid, s := range h.sessions {
		if s.stale(now, h.opts.HandshakeTimeout, h.opts.IdleTimeout) {
			delete(h.sessions, sid)
			s.cancel()
		}
	}
	if len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "too many sessions"})
		return
	}
	h.sessions[id] = newSession(h.ctx, id, now)
	h.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"session_id": id})
}

func (h *Host) session(r *http.Request) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[r.Header.Get(SessionHeader)]
}

func (h *Host) endSession(s *Session) {
	h.mu.Lock()
	delete(h.sessions, s.ID)
	h.mu.Unlock()
	s.cancel()
}

func (h *Host) serveSend(w http.ResponseWriter, r *http.Request) {
	s := h.session(r)
	if s == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "unknown session"})
		return
	}
	line, err := io.ReadAll(io.LimitReader(r.Body, int64(h.opts.MaxLineBytes)+3))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "reading body"})
		return
	}
	s.touch(h.opts.Now())
	m, derr := a2e.DecodeLine(line, h.opts.MaxLineBytes)
	h.opts.Recorder.Record(RecordedMessage{Time: h.opts.Now(), Session: s.ID, Type: m.Type, Line: line})
	if derr != nil {
		h.refuse(s, a2e.Envelope{}, "", decodeCode(derr), derr.Error(), false)
		if errors.Is(derr, a2e.ErrTooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]any{"error": "line too large"})
			return
		}
		writeJSON(w, http.StatusAccepted, map[string]bool{"ok": true})
		return
	}
	h.handle(s, m)
	writeJSON(w, http.StatusAccepted, map[string]bool{"ok": true})
}

// decodeCode maps a DecodeLine error to its wire code.
func decodeCode(err error) string {
	switch {
	case errors.Is(err, a2e.ErrTooLarge):
		return a2e.CodeMessageTooLarge
	case errors.Is(err, a2e.ErrParse):
		return a2e.CodeParseError
	}
	return a2e.CodeInvalidMessage
}

// emit encodes body as a reply to in and queues it on s's stream.
func (h *Host) emit(s *Session, in a2e.Envelope, body a2e.Body) {
	key, version := s.replyKey()
	if in.Key != "" {
		key, version = in.Key, in.Version
	}
	if key == "" {
		key, version = a2e.KeyA2E, h.opts.Version
	}
	line, err := a2e.Encode(a2e.NewEnvelope("", newID(), h.opts.Now(), key, version), body)
	if err != nil {
		h.opts.Logger.Error("lab: encoding a message", "type", body.MessageType(), "error", err)
		return
	}
	s.push(line)
}

// refuse answers in with an A2E error.
func (h *Host) refuse(s *Session, in a2e.Envelope, capability, code, msg string, retryable bool) {
	h.opts.Logger.Info("lab: refused", "session", s.ID, "type", in.Type, "code", code)
	h.emit(s, in, &a2e.Error{ReqID: in.ID, Code: code, Message: msg, Retryable: retryable, CapabilityName: capability})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// newID returns 128 random bits in hex.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("lab: crypto/rand failed: %v", err)) // never happens on supported platforms
	}
	return hex.EncodeToString(b[:])
}
