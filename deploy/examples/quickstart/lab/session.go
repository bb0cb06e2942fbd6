package lab

import (
	"context"
	"sync"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

// Session is one A2E session on the host. Plugins keep their per-session
// state in it through State.
type Session struct {
	// ID is the session id returned by POST /session.
	ID string

	ctx    context.Context
	cancel context.CancelFunc
	notify chan struct{} // capacity 1: the outbox has something

	mu         sync.Mutex
	created    time.Time
	active     time.Time // last /send
	state      map[string]any
	handshaken bool
	caps       map[string]bool
	key        a2e.VersionKey
	version    string
	inflight   int
	outbox     [][]byte
	dropped    int
}

func newSession(parent context.Context, id string, now time.Time) *Session {
	ctx, cancel := context.WithCancel(parent)
	return &Session{ID: id, ctx: ctx, cancel: cancel, notify: make(chan struct{}, 1), state: map[string]any{},
		created: now, active: now}
}

// touch records activity at now.
func (s *Session) touch(now time.Time) {
	s.mu.Lock()
	s.active = now
	s.mu.Unlock()
}

// stale reports whether the session should end at now: unauthenticated
// past handshake, or idle past idle.
func (s *Session) stale(now time.Time, handshake, idle time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.handshaken && now.Sub(s.created) >= handshake || now.Sub(s.active) >= idle
}

// State returns the value plugin keeps on the session, creating it with
// init on first use.
func (s *Session) State(plugin string, init func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.state[plugin]
	if !ok {
		v = init()
		s.state[plugin] = v
	}
	return v
}

// push queues line for the stream, dropping the oldest beyond OutboxLimit.
func (s *Session) push(line []byte) {
	s.mu.Lock()
	if len(s.outbox) >= OutboxLimit {
		s.outbox = s.outbox[1:]
		s.dropped++
	}
	s.outbox = append(s.outbox, line)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// take removes and returns the queued lines.
func (s *Session) take() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.outbox
	s.outbox = nil
	return out
}

// accepted reports whether the session has negotiated capability.
func (s *Session) accepted(capability string) (handshaken, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handshaken, s.caps[capability]
}

// acquire takes a request slot, failing beyond max.
func (s *Session) acquire(max int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight >= max {
		return false
	}
	s.inflight++
	return true
}

func (s *Session) release() {
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
}

// replyKey returns the version spelling and value the peer used.
func (s *Session) replyKey() (a2e.VersionKey, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key, s.version
}
