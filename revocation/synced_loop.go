package revocation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Reconnection backoff of the subscription loop: it doubles from
// minBackoff up to reconnectCap.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// reconnectCap is the longest the subscription loop waits between two
// attempts: a quarter of MaxStaleness, between minBackoff and maxBackoff.
// It bounds how late a running replica reconnects, and writes back, after
// Redis answers again (see MinInitGrace).
func reconnectCap(maxStaleness time.Duration) time.Duration {
	return min(maxBackoff, max(minBackoff, maxStaleness/4))
}

// errPongTimeout ends a session whose PING went unanswered.
var errPongTimeout = errors.New("revocation: pub/sub ping unanswered")

// run keeps a subscription session alive until ctx is done.
func (s *Synced) run(ctx context.Context) {
	defer close(s.done)
	backoff, limit := minBackoff, reconnectCap(s.opts.MaxStaleness)
	for {
		synced, err := s.session(ctx)
		s.markStale()
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("revocation: subscription lost; checks go to redis until resynced", "err", err)
		if synced {
			backoff = minBackoff
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, limit)
	}
}

// session is one subscription, from SUBSCRIBE until it fails.
type session struct {
	s        *Synced
	ps       *redis.PubSub
	synced   bool      // a resync completed on this subscription
	seq      uint64    // payload of the last PING
	pingSent time.Time // when it was sent; zero once answered
	lastPing time.Time
	// lease is when the last registration that succeeded since the last
	// resync was sent (zero if none); pingLease is the lease in force when
	// the PING in flight was sent, the one its answer may rely on.
	lease, pingLease time.Time
}

// session subscribes and serves events until the subscription fails. It
// reports whether it completed a sync.
func (s *Synced) session(ctx context.Context) (bool, error) {
	ps := s.redis.client.Subscribe(ctx, s.redis.keys.channel(), s.redis.keys.acks())
	defer func() { _ = ps.Close() }()
	s.psMu.Lock()
	if ctx.Err() != nil {
		s.psMu.Unlock()
		return false, ctx.Err()
	}
	s.ps = ps
	s.psMu.Unlock()

	ss := &session{s: s, ps: ps}
	for {
		msg, err := ps.ReceiveTimeout(ctx, ss.wait(s.opts.Now()))
		switch {
		case err == nil:
			err = ss.handle(ctx, msg)
		case isTimeout(err):
			err = nil
		}
		if err == nil {
			err = ss.tick(ctx)
		}
		if err != nil {
			return ss.synced, err
		}
	}
}

// handle applies one message from the subscription.
func (ss *session) handle(ctx context.Context, msg any) error {
	s := ss.s
	switch m := msg.(type) {
	case *redis.Subscription:
		if m.Kind != "subscribe" {
			return fmt.Errorf("revocation: unexpected %s on %q", m.Kind, m.Channel)
		}
		// A confirmation comes after every (re)subscription, including the
		// silent ones go-redis makes after a reconnect: events may have been
		// missed, so rebuild. (Both channels share the connection; the
		// events channel's confirmation comes first.)
		if m.Channel == s.redis.keys.channel() {
			return ss.resync(ctx)
		}
	case *redis.Message:
		if m.Channel == s.redis.keys.acks() {
			s.onAck(m.Payload)
			return nil
		}
		ev, err := parseEvent(m.Payload)
		if err != nil {
			s.malformed.Add(1)
			s.log.Warn("revocation: malformed event; resyncing", "err", err)
			return ss.resync(ctx)
		}
		s.set.add(ev.entry)
		if ev.nonce != "" {
			s.delivered(ev.nonce)
		}
	case *redis.Pong:
		return ss.pong(ctx, m)
	}
	return nil
}

// pong handles the answer to a PING: if it answers the PING in flight, the
// epoch marker is intact and a lease preceded the PING, the local set is
// confirmed fresh as of the PING's sending.
func (ss *session) pong(ctx context.Context, m *redis.Pong) error {
	s := ss.s
	if ss.pingSent.IsZero() || m.Payload != strconv.FormatUint(ss.seq, 10) {
		return nil
	}
	sent, leased := ss.pingSent, ss.pingLease
	ss.pingSent = time.Time{}
	if ss.synced && ss.confirm(ctx) && !leased.IsZero() {
		s.markFresh(sent, leased)
	}
	if s.lost.Load() {
		return errStoreLostSeen
	}
	return nil
}

// errStoreLostSeen ends a session whose PING found the epoch marker gone or
// changed, so that the next one resyncs and writes back.
var errStoreLostSeen = fmt.Errorf("%w: epoch marker gone or changed", ErrStoreLost)

// confirm reads the epoch marker after a PING was answered, and renews
// the lease for the next PING in the same round trip: the local set is
// confirmed fresh only if the marker is still the one of the last resync.
// A changed or missing marker marks the replica lost; a failed read just
// leaves freshness unconfirmed.
func (ss *session) confirm(ctx context.Context) bool {
	s := ss.s
	leased := s.opts.Now()
	rn, err := s.redis.confirm(ctx, s.id, registryLeaseFactor*s.opts.MaxStaleness)
	if err != nil {
		return false
	}
	if rn.leased {
		ss.lease = leased
	}
	if rn.epoch.present && rn.epoch.value == s.epoch {
		return true
	}
	_ = s.redis.observe(rn.epoch)
	s.markLost()
	return false
}

// markLost stops answering from memory until a resync re-establishes the
// marker.
func (s *Synced) markLost() {
	s.markStale()
	if s.lost.CompareAndSwap(false, true) {
		s.log.Error("revocation: redis lost or replaced the revocation set; resyncing and writing back what this replica holds")
	}
}

// resync marks the set unsynced, rebuilds it, registers a lease, and
// pings at once so that it is confirmed fresh as soon as the events queued
// meanwhile are applied. A lease from before the resync is forgotten: it
// may have been lost with the set.
func (ss *session) resync(ctx context.Context) error {
	s := ss.s
	ss.synced, ss.lease = false, time.Time{}
	s.markStale()
	start := s.opts.Now()
	if err := s.resync(ctx, start); err != nil {
		return err
	}
	ss.synced = true
	leased := s.opts.Now()
	if err := s.redis.register(ctx, s.id, registryLeaseFactor*s.opts.MaxStaleness); err == nil {
		ss.lease = leased
	}
	// Forget any PING in flight (it may have been lost with a connection
	// go-redis replaced) and send a new one at once.
	ss.pingSent, ss.lastPing = time.Time{}, time.Time{}
	s.log.Info("revocation: local set synced from redis", "size", s.set.len(), "took", s.opts.Now().Sub(start))
	return nil
}

// tick pings when one is due and ends the session when a ping went
// unanswered for MaxStaleness.
func (ss *session) tick(ctx context.Context) error {
	now := ss.s.opts.Now()
	if !ss.pingSent.IsZero() {
		if now.Sub(ss.pingSent) > ss.s.opts.MaxStaleness {
			return errPongTimeout
		}
		return nil
	}
	if now.Sub(ss.lastPing) < ss.s.opts.PingInterval {
		return nil
	}
	ss.seq++
	ss.pingSent, ss.lastPing, ss.pingLease = now, now, ss.lease
	return ss.ps.Ping(ctx, strconv.FormatUint(ss.seq, 10))
}

// wait is how long the next receive may block before tick must run.
func (ss *session) wait(now time.Time) time.Duration {
	o := ss.s.opts
	d := ss.lastPing.Add(o.PingInterval).Sub(now)
	if !ss.pingSent.IsZero() {
		d = ss.pingSent.Add(o.MaxStaleness).Sub(now)
	}
	return min(max(d, time.Millisecond), o.PingInterval)
}

// isTimeout reports a read deadline expiring: no message in time.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
