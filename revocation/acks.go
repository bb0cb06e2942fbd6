package revocation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrUnconfirmed is returned, wrapped together with the context's error,
// by Synced.Revoke and Synced.RevokePrincipal when the context ended while
// they waited for the replicas' acknowledgements. The revocation is stored
// and published, and in effect on every replica at the latest MaxStaleness
// after the call, but the call did not wait to confirm it; retrying is
// harmless.
var ErrUnconfirmed = errors.New("revocation: stored, but the replicas' acknowledgements were not awaited")

// waiter collects the acknowledgements of one published revocation.
type waiter struct {
	nonce   string
	self    string        // this replica's id
	changed chan struct{} // signalled (capacity 1) on every new ack

	mu       sync.Mutex
	acked    map[string]struct{} // replica ids, this one included
	received time.Time           // when this replica's own subscription delivered the event
}

// ack records replica's acknowledgement; this replica's own is its
// subscription delivering the event, at the time given.
func (w *waiter) ack(replica string, at time.Time) {
	w.mu.Lock()
	w.acked[replica] = struct{}{}
	if replica == w.self {
		w.received = at
	}
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// receivedAt is when this replica's own subscription delivered the event;
// zero if it has not.
func (w *waiter) receivedAt() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.received
}

// wanted is what a revoker waits for: as many acknowledgements as PUBLISH
// counted, and one from every other replica holding a lease (when the
// registry could be read).
type wanted struct {
	count int64
	live  []string
	known bool // live was read
}

// missing reports how many acknowledgements are still wanted.
func (w *waiter) missing(want wanted) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := int(want.count) - len(w.acked)
	unacked := 0
	for _, id := range want.live {
		if _, ok := w.acked[id]; !ok && id != w.self {
			unacked++
		}
	}
	return max(n, unacked, 0)
}

// waiters are the revocations this replica is waiting on, by nonce.
type waiters struct {
	mu sync.Mutex
	m  map[string]*waiter
}

// add registers a waiter under a new nonce.
func (t *waiters) add(self string) *waiter {
	w := &waiter{nonce: newToken(), self: self, changed: make(chan struct{}, 1), acked: map[string]struct{}{}}
	t.mu.Lock()
	t.m[w.nonce] = w
	t.mu.Unlock()
	return w
}

// get returns the waiter for nonce, nil if there is none.
func (t *waiters) get(nonce string) *waiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[nonce]
}

// remove forgets w.
func (t *waiters) remove(w *waiter) {
	t.mu.Lock()
	delete(t.m, w.nonce)
	t.mu.Unlock()
}

// revoke adds e to the local set, writes and publishes it with a fresh
// nonce, and waits until every replica that may answer from memory has
// acknowledged it, or until no replica that lacks it can still be fresh
// (see the package doc).
func (s *Synced) revoke(ctx context.Context, e entry) error {
	s.set.add(e)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: revoke: %w", ErrUnavailable, err)
	}
	w := s.waiters.add(s.id)
	defer s.waiters.remove(w)
	// Once started, the write is finished even if ctx ends meanwhile (the
	// store's timeout bounds it): the caller is then told "stored, not
	// confirmed" or "not stored", never an outcome left to the timing of
	// its cancellation. ctx governs the wait for acknowledgements.
	n, err := s.redis.writeEntry(context.WithoutCancel(ctx), e, true, w.nonce)
	if err != nil || n == notPublished {
		return err
	}
	// The reply came after the PUBLISH ran: the bound is measured from here.
	published := s.opts.Now()
	want := wanted{count: n}
	want.live, err = s.redis.liveReplicas(ctx)
	want.known = err == nil
	return s.await(ctx, e, w, want, published)
}

// await waits for w's acknowledgements until the bound: MaxStaleness after
// published, or after this replica's own subscription delivered the event
// if that came later (on Cluster the event reaches the subscribers' node
// over the cluster bus, after the script ran).
func (s *Synced) await(ctx context.Context, e entry, w *waiter, want wanted, published time.Time) error {
	m := s.opts.MaxStaleness
	deadline := published.Add(m)
	timer := time.NewTimer(m)
	defer timer.Stop()
	for {
		missing := w.missing(want)
		if want.known && missing == 0 {
			return nil
		}
		now := s.opts.Now()
		if !now.Before(deadline) {
			if own := w.receivedAt().Add(m); now.Before(own) {
				deadline = own
				continue
			}
			s.unconfirmed(e, w, want, missing)
			return nil
		}
		timer.Reset(deadline.Sub(now))
		select {
		case <-w.changed:
		case <-timer.C:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrUnconfirmed, ctx.Err())
		}
	}
}

// unconfirmed counts and logs a revocation that reached the bound without
// every acknowledgement.
func (s *Synced) unconfirmed(e entry, w *waiter, want wanted, missing int) {
	s.unconfirmedRevokes.Add(1)
	s.missingAcks.Add(uint64(missing))
	w.mu.Lock()
	acked := len(w.acked)
	w.mu.Unlock()
	kind := "id"
	if e.principal {
		kind = "principal"
	}
	s.log.Warn("revocation: not every replica acknowledged the revocation within max staleness; "+
		"it is in effect everywhere anyway, since a replica without it can no longer trust its set",
		kind, e.name, "missing_acks", missing, "acks", acked, "published_to", want.count,
		"leased_replicas", len(want.live), "registry_read", want.known)
}

// delivered handles an event carrying nonce, once it is in the local set:
// this replica's own revocation is marked delivered, any other one is
// acknowledged.
func (s *Synced) delivered(nonce string) {
	if w := s.waiters.get(nonce); w != nil {
		w.ack(s.id, s.opts.Now())
		return
	}
	s.acker.enqueue(nonce)
}

// onAck handles a message on the acknowledgement channel. A malformed one
// is counted and ignored: it carries no revocation.
func (s *Synced) onAck(payload string) {
	nonce, replica, err := parseAck(payload)
	if err != nil {
		s.malformed.Add(1)
		s.log.Warn("revocation: malformed acknowledgement ignored", "err", err)
		return
	}
	if w := s.waiters.get(nonce); w != nil && replica != s.id {
		w.ack(replica, time.Time{})
	}
}
