package revocation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultMaxStaleness bounds how old the local set's last confirmed sync
// may be before Synced stops trusting it, when the options leave it zero.
const DefaultMaxStaleness = 2 * time.Second

// minStaleness is the smallest MaxStaleness accepted: below it the PINGs
// that confirm freshness could not keep up.
const minStaleness = 10 * time.Millisecond

// SyncedOptions configures NewSynced. The zero value is valid.
type SyncedOptions struct {
	// MaxStaleness is how long after its last confirmed sync the local set
	// may answer "not revoked" on its own; zero means DefaultMaxStaleness.
	// It bounds how long a revocation can go unseen if pub/sub silently
	// stalls.
	MaxStaleness time.Duration
	// PingInterval is how often the subscription is pinged to confirm it is
	// alive and caught up; zero means MaxStaleness/4. It must be shorter
	// than MaxStaleness.
	PingInterval time.Duration
	// PruneInterval is how often expired entries are dropped from the local
	// set; zero means DefaultPruneInterval.
	PruneInterval time.Duration
	// Now is the clock; nil means time.Now. Freshness is measured on it
	// as durations, so it must keep Go's monotonic reading (time.Now does;
	// time.Now().UTC() does not, and brings wall-clock steps back).
	Now func() time.Time
	// Logger receives subscription and resync events; nil discards them.
	Logger *slog.Logger
}

// Validate reports every problem with o.
func (o SyncedOptions) Validate() error {
	var errs []error
	if o.MaxStaleness < 0 || (o.MaxStaleness > 0 && o.MaxStaleness < minStaleness) {
		errs = append(errs, fmt.Errorf("%w: max staleness %v: zero for the default, or at least %v", ErrInvalidOptions, o.MaxStaleness, minStaleness))
	}
	if o.PingInterval < 0 {
		errs = append(errs, fmt.Errorf("%w: ping interval %v is negative", ErrInvalidOptions, o.PingInterval))
	}
	if d := o.withDefaults(); o.MaxStaleness >= 0 && d.PingInterval >= d.MaxStaleness {
		errs = append(errs, fmt.Errorf("%w: ping interval %v must be shorter than max staleness %v", ErrInvalidOptions, d.PingInterval, d.MaxStaleness))
	}
	if o.PruneInterval < 0 {
		errs = append(errs, fmt.Errorf("%w: prune interval %v is negative", ErrInvalidOptions, o.PruneInterval))
	}
	return errors.Join(errs...)
}

func (o SyncedOptions) withDefaults() SyncedOptions {
	if o.MaxStaleness == 0 {
		o.MaxStaleness = DefaultMaxStaleness
	}
	if o.PingInterval == 0 {
		o.PingInterval = o.MaxStaleness / 4
	}
	if o.PruneInterval == 0 {
		o.PruneInterval = DefaultPruneInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Synced is a replica's local copy of the revocations held in Redis, kept
// current by pub/sub and rebuilt from Redis (SCAN) on start and on every
// (re)subscription.
//
// Check answers from memory, with no network round trip, while the
// subscription is healthy and its last confirmed sync is within
// MaxStaleness. Otherwise it asks Redis, and fails with ErrUnavailable when
// Redis cannot answer. A revocation found locally is always trusted: the
// local set only grows from real revocations, and keeps them even if Redis
// loses them, in which case the next resync writes them back.
//
// Revoke and RevokePrincipal return once every replica that may answer
// from memory has acknowledged the revocation, or once none that lacks it
// can still trust its set (see the package doc).
//
// After every answered PING it reads the epoch marker; if Redis lost the
// set, it stops answering from memory (checks go to Redis, which fails
// closed), resyncs, writes back everything it holds, and only then
// re-establishes the marker. Ready is false meanwhile.
type Synced struct {
	redis    *Redis
	set      *set
	opts     SyncedOptions
	log      *slog.Logger
	janitor  *janitor
	acker    *acker
	waiters  waiters
	cancel   context.CancelFunc
	done     chan struct{}
	synced   chan struct{} // closed once the local set is first confirmed fresh
	syncOnce sync.Once
	closed   atomic.Bool

	// id names this replica in the registry and in its acknowledgements.
	id string
	// base is the clock reading freshUntil counts from: freshness is
	// measured as a duration, on the monotonic clock when the clock has
	// one, so that a step of the wall clock cannot extend it.
	base time.Time
	// freshUntil is until when (nanoseconds after base) the local set may
	// answer "not revoked" on its own; 0 while it may not.
	freshUntil atomic.Int64
	// syncedAt is when (unix ns) the local set was last confirmed to hold
	// every revocation published before it; 0 while not synced.
	syncedAt  atomic.Int64
	lastSync  atomic.Int64
	resyncs   atomic.Uint64
	restored  atomic.Uint64
	malformed atomic.Uint64

	unconfirmedRevokes atomic.Uint64
	missingAcks        atomic.Uint64

	// epoch is the marker in force at the last complete resync ("" before
	// the first); only the subscription goroutine touches it. lost is set
	// from the moment a loss is seen until a resync has written back and
	// re-established the marker.
	epoch string
	lost  atomic.Bool

	psMu sync.Mutex
	ps   *redis.PubSub
}

// NewSynced starts the subscription and waits, at most until ctx is done,
// for the first complete sync and the PING that confirms it; it fails
// with ErrUnavailable if none happened. The Redis store stays the
// caller's: Close does not close it.
func NewSynced(ctx context.Context, r *Redis, opts SyncedOptions) (*Synced, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil Redis store", ErrInvalidOptions)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if want := MinInitGrace(opts.MaxStaleness, r.breaker.opts); r.grace < want {
		opts.Logger.Warn("revocation: redis init grace is shorter than MinInitGrace; a replica that never saw the epoch marker "+
			"may initialise an empty set after a loss before this one has written back, and accept what it revoked meanwhile",
			"init_grace", r.grace, "min_init_grace", want, "max_staleness", opts.MaxStaleness)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &Synced{
		redis: r, set: newSet(), opts: opts, log: opts.Logger,
		waiters: waiters{m: map[string]*waiter{}},
		cancel:  cancel, done: make(chan struct{}), synced: make(chan struct{}),
		id: newToken(), base: opts.Now(),
	}
	s.janitor = startJanitor(s.set, opts.PruneInterval, opts.Now)
	s.acker = startAcker(runCtx, r, s.id, s.log)
	go s.run(runCtx)
	select {
	case <-s.synced:
		return s, nil
	case <-ctx.Done():
		_ = s.Close()
		return nil, fmt.Errorf("%w: no initial sync: %w", ErrUnavailable, ctx.Err())
	}
}

// Revoke implements Store. The revocation takes effect on this replica
// before Redis is written; if writing Redis fails, the error is returned
// (retry it) and the next resync writes the local entry back.
//
// Once Redis holds and has published it, Revoke waits until every other
// replica that may answer from memory has acknowledged it, or until
// MaxStaleness has passed, after which no replica lacking it trusts its
// set any more (both are in the package doc). Either way it returns nil;
// reaching the bound is logged and counted (SyncedStats). If ctx ends
// while it waits, it returns ErrUnconfirmed wrapping ctx's error: the
// revocation is stored, but confirmation was not awaited. A ctx that ends
// during the write does not cut it short (the store's timeout bounds it),
// so a cancelled call is "stored, not confirmed" or "not stored", never
// undetermined.
func (s *Synced) Revoke(ctx context.Context, id string, until time.Time) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := validateID(id); err != nil {
		return err
	}
	if err := validateTime("until", until); err != nil {
		return err
	}
	return s.revoke(ctx, entry{name: id, cutoff: cutoff{untilMs: ceilMilli(until)}})
}

// RevokePrincipal implements Store, taking effect locally first and
// waiting for the replicas like Revoke.
func (s *Synced) RevokePrincipal(ctx context.Context, principal string, before, until time.Time) error {
	if err := s.usable(); err != nil {
		return err
	}
	c, err := newCutoff(principal, before, until)
	if err != nil {
		return err
	}
	return s.revoke(ctx, entry{principal: true, name: principal, cutoff: c})
}

// Check implements Store: from memory when fresh, else from Redis.
// Freshness is read before the set: a confirmation stored after the read
// of the set could vouch for an event the read missed.
func (s *Synced) Check(ctx context.Context, q Query) (Result, error) {
	if err := s.usable(); err != nil {
		return Result{}, err
	}
	if err := validateQuery(q); err != nil {
		return Result{}, err
	}
	now := s.opts.Now()
	fresh := s.fresh(now)
	if res := s.set.check(q, now); res.Revoked || fresh {
		return res, nil
	}
	return s.redis.Check(ctx, q)
}

// fresh reports whether the local set may answer "not revoked" at now.
func (s *Synced) fresh(now time.Time) bool {
	until := s.freshUntil.Load()
	return until != 0 && int64(now.Sub(s.base)) < until
}

// markFresh records a confirmed sync: the local set held every revocation
// published before sent, when the PING sent then was answered, and the
// lease registered at leased (before that PING) is still running. The set
// is trusted until MaxStaleness after sent, and never beyond the lease
// (see registry.go).
func (s *Synced) markFresh(sent, leased time.Time) {
	m := s.opts.MaxStaleness
	until := min(sent.Add(m).Sub(s.base), leased.Add(localLeaseFactor*m).Sub(s.base))
	s.freshUntil.Store(int64(until))
	s.syncedAt.Store(sent.UnixNano())
	s.syncOnce.Do(func() { close(s.synced) })
}

// markStale stops answering from memory until the next confirmed sync.
func (s *Synced) markStale() {
	s.freshUntil.Store(0)
	s.syncedAt.Store(0)
}

// SyncedStats describes a Synced store for metrics and readiness.
type SyncedStats struct {
	// Size is the number of local entries, expired ones not yet pruned
	// included.
	Size int
	// LastSync is when the last complete resync from Redis finished.
	LastSync time.Time
	// SyncedAt is the moment up to which the local set is confirmed
	// complete; zero while the subscription is down or resyncing.
	SyncedAt time.Time
	// Healthy reports that Check answers from memory right now.
	Healthy bool
	// Resyncs counts complete resyncs from Redis.
	Resyncs uint64
	// Restored counts entries written back to Redis because Redis had lost
	// them.
	Restored uint64
	// Malformed counts unparsable events and acknowledgements received.
	Malformed uint64
	// UnconfirmedRevokes counts revocations made here that reached the
	// bound (MaxStaleness) without every acknowledgement they waited for.
	UnconfirmedRevokes uint64
	// MissingAcks sums the acknowledgements those revocations lacked.
	MissingAcks uint64
	// DroppedAcks counts acknowledgements this replica did not publish
	// because its queue was full.
	DroppedAcks uint64
	// Lost reports that Redis lost the revocation set and this replica has
	// not yet written back and re-established it.
	Lost bool
}

// Stats returns the store's current state.
func (s *Synced) Stats() SyncedStats {
	st := SyncedStats{
		Size:      s.set.len(),
		Healthy:   s.fresh(s.opts.Now()),
		Resyncs:   s.resyncs.Load(),
		Restored:  s.restored.Load(),
		Malformed: s.malformed.Load(),
		Lost:      s.lost.Load(),

		UnconfirmedRevokes: s.unconfirmedRevokes.Load(),
		MissingAcks:        s.missingAcks.Load(),
		DroppedAcks:        s.acker.dropped.Load(),
	}
	if at := s.lastSync.Load(); at != 0 {
		st.LastSync = time.Unix(0, at)
	}
	if at := s.syncedAt.Load(); at != 0 {
		st.SyncedAt = time.Unix(0, at)
	}
	return st
}

// Ready reports whether this replica can answer trustworthily: Redis
// answers and holds the epoch marker, and, if Redis lost the set, this
// replica has written back what it holds. For readiness probes.
func (s *Synced) Ready(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.lost.Load() {
		return fmt.Errorf("%w: %w: writing back", ErrUnavailable, ErrStoreLost)
	}
	return s.redis.Ping(ctx)
}

// Close stops the subscription, the acknowledgements and the janitor and
// waits for them, after taking this replica out of the registry (best
// effort: a lease left behind ends on its own). It does not close the
// Redis store. It is idempotent.
func (s *Synced) Close() error {
	first := !s.closed.Swap(true)
	s.cancel()
	s.psMu.Lock()
	if s.ps != nil {
		_ = s.ps.Close()
	}
	s.psMu.Unlock()
	<-s.done
	<-s.acker.done
	s.janitor.close()
	// Deregistered only once the loop has stopped: a lease renewal still
	// in flight would otherwise write the lease back, and every revoke on
	// the other replicas would wait the whole bound for this closed one
	// until the lease expired.
	if first {
		_ = s.redis.deregister(context.Background(), s.id)
	}
	return nil
}

func (s *Synced) usable() error {
	if s.closed.Load() {
		return fmt.Errorf("%w: %w", ErrUnavailable, ErrClosed)
	}
	return nil
}
