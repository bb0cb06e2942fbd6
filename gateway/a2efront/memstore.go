package a2efront

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// MemoryStore is the embedded SessionStore for a single replica.
type MemoryStore struct {
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]*memEntry
	closed   bool
}

var _ SessionStore = (*MemoryStore)(nil)

type memEntry struct {
	s        Session
	inflight map[string]time.Time // request id → deadline
	mbox     [][]byte
	notify   chan struct{} // capacity 1
	gone     chan struct{} // closed on delete or expiry
}

// NewMemoryStore returns an empty in-memory store. now is its clock; nil
// means time.Now.
func NewMemoryStore(now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{now: now, sessions: map[string]*memEntry{}}
}

// live returns the entry of a live session, removing it when expired.
// The caller holds m.mu.
func (m *MemoryStore) live(id string) (*memEntry, error) {
	if m.closed {
		return nil, fmt.Errorf("%w: store closed", ErrStoreUnavailable)
	}
	e, ok := m.sessions[id]
	if !ok {
		return nil, ErrSessionNotFound
	}
	if !e.s.ExpiresAt.After(m.now()) {
		m.remove(id, e)
		return nil, ErrSessionNotFound
	}
	return e, nil
}

func (m *MemoryStore) remove(id string, e *memEntry) {
	delete(m.sessions, id)
	close(e.gone)
}

// Create implements SessionStore.
func (m *MemoryStore) Create(_ context.Context, s Session, lim Limits) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("%w: store closed", ErrStoreUnavailable)
	}
	now := m.now()
	anonymous, client := 0, 0
	for id, e := range m.sessions {
		switch {
		case !e.s.ExpiresAt.After(now):
			m.remove(id, e)
		case e.s.Client != "" && e.s.Principal == "":
			anonymous++
			if e.s.Client == s.Client {
				client++
			}
		}
	}
	if _, exists := m.sessions[s.ID]; exists {
		return fmt.Errorf("%w: session id exists", ErrConflict)
	}
	switch {
	case len(m.sessions) >= lim.Max:
		return ErrSessionLimit
	case s.Client != "" && anonymous >= lim.Anonymous:
		return ErrAnonymousLimit
	case s.Client != "" && client >= lim.PerClient:
		return ErrClientLimit
	}
	s.Rev = 1
	m.sessions[s.ID] = &memEntry{s: cloneSession(s), inflight: map[string]time.Time{},
		notify: make(chan struct{}, 1), gone: make(chan struct{})}
	return nil
}

// Get implements SessionStore.
func (m *MemoryStore) Get(_ context.Context, id string) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(id)
	if err != nil {
		return Session{}, err
	}
	return cloneSession(e.s), nil
}

// Update implements SessionStore.
func (m *MemoryStore) Update(_ context.Context, s Session) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(s.ID)
	if err != nil {
		return Session{}, err
	}
	if e.s.Rev != s.Rev {
		return Session{}, ErrConflict
	}
	s.Rev++
	e.s = cloneSession(s)
	return cloneSession(s), nil
}

// Delete implements SessionStore.
func (m *MemoryStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("%w: store closed", ErrStoreUnavailable)
	}
	if e, ok := m.sessions[id]; ok {
		m.remove(id, e)
	}
	return nil
}

// Admit implements SessionStore.
func (m *MemoryStore) Admit(_ context.Context, id, reqID string, max int, deadline time.Time) (Admission, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(id)
	if err != nil {
		return 0, err
	}
	now := m.now()
	for r, d := range e.inflight {
		if !d.After(now) {
			delete(e.inflight, r)
		}
	}
	switch _, dup := e.inflight[reqID]; {
	case dup:
		return Duplicate, nil
	case len(e.inflight) >= max:
		return Full, nil
	}
	e.inflight[reqID] = deadline
	return Admitted, nil
}

// Complete implements SessionStore.
func (m *MemoryStore) Complete(_ context.Context, id, reqID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(id)
	if err != nil {
		return false, err
	}
	_, was := e.inflight[reqID]
	delete(e.inflight, reqID)
	return was, nil
}

// InFlight implements SessionStore.
func (m *MemoryStore) InFlight(_ context.Context, id string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(id)
	if err != nil {
		return 0, err
	}
	n, now := 0, m.now()
	for _, d := range e.inflight {
		if d.After(now) {
			n++
		}
	}
	return n, nil
}

// Publish implements SessionStore.
func (m *MemoryStore) Publish(_ context.Context, id string, msg []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(id)
	if err != nil {
		return err
	}
	if len(e.mbox) >= MailboxLimit {
		e.mbox = e.mbox[1:]
	}
	e.mbox = append(e.mbox, slices.Clone(msg))
	select {
	case e.notify <- struct{}{}:
	default:
	}
	return nil
}

// Subscribe implements SessionStore.
func (m *MemoryStore) Subscribe(ctx context.Context, id string) (Subscription, error) {
	m.mu.Lock()
	e, err := m.live(id)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	sub := newChanSub(ctx)
	go func() {
		defer sub.finish()
		for {
			m.mu.Lock()
			msgs := e.mbox
			e.mbox = nil
			m.mu.Unlock()
			for i, msg := range msgs {
				if !sub.deliver(msg) {
					m.requeue(e, msgs[i:])
					return
				}
			}
			select {
			case <-e.notify:
			case <-e.gone:
				return
			case <-sub.ctx.Done():
				return
			}
		}
	}()
	return sub, nil
}

// requeue puts undelivered messages back at the head of the mailbox.
func (m *MemoryStore) requeue(e *memEntry, msgs [][]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e.mbox = append(slices.Clone(msgs), e.mbox...)
	if over := len(e.mbox) - MailboxLimit; over > 0 {
		e.mbox = e.mbox[over:]
	}
}

// Close implements SessionStore. Later calls fail with
// ErrStoreUnavailable.
func (m *MemoryStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		for id, e := range m.sessions {
			m.remove(id, e)
		}
	}
	return nil
}

func cloneSession(s Session) Session {
	s.Groups = slices.Clone(s.Groups)
	s.Requested = slices.Clone(s.Requested)
	s.Forwarded = slices.Clone(s.Forwarded)
	s.Accepted = slices.Clone(s.Accepted)
	s.Denied = maps.Clone(s.Denied)
	s.PolicyReasons = maps.Clone(s.PolicyReasons)
	return s
}

// chanSub is a Subscription fed by a goroutine.
type chanSub struct {
	ctx    context.Context
	cancel context.CancelFunc
	c      chan []byte
	done   chan struct{}
}

func newChanSub(parent context.Context) *chanSub {
	ctx, cancel := context.WithCancel(parent)
	return &chanSub{ctx: ctx, cancel: cancel, c: make(chan []byte), done: make(chan struct{})}
}

// deliver hands msg to the reader; false when the subscription ended.
func (s *chanSub) deliver(msg []byte) bool {
	select {
	case s.c <- msg:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// finish closes C; the feeding goroutine calls it once.
func (s *chanSub) finish() {
	close(s.c)
	close(s.done)
}

// C implements Subscription.
func (s *chanSub) C() <-chan []byte { return s.c }

// Close implements Subscription. It waits for the feeding goroutine.
func (s *chanSub) Close() error {
	s.cancel()
	<-s.done
	return nil
}
