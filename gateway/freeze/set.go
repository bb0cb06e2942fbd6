package freeze

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
)

// DefaultMaxStaleness is how long a replica trusts its memory after its
// last read of the shared copy when Options.MaxStaleness is zero.
const DefaultMaxStaleness = 2 * time.Second

// Options configure a Set.
type Options struct {
	// Runtime's Redis, when set, is where the set is shared with every
	// replica; nil keeps it in this process. Its clock (Now) dates
	// changes and its Logger receives failures.
	platform.Runtime
	// MaxStaleness is how long a replica trusts its memory after the
	// last read of the shared copy that succeeded, and how long Freeze
	// waits after its write; zero means DefaultMaxStaleness.
	MaxStaleness time.Duration
}

// Set is the frozen set, replicated when Options name Redis. It is safe
// for concurrent use.
type Set struct {
	opts  Options
	redis *shared
	stop  context.CancelFunc
	done  chan struct{}

	mu sync.RWMutex
	t  table
	// trusted is when the last successful read of the shared copy was
	// sent; the zero time before any.
	trusted time.Time
}

// New returns the set. With Redis it reads the shared copy once before
// returning (a failure is logged: Check fails closed until a later read
// succeeds), then keeps merging in the background until Close.
func New(ctx context.Context, opts Options) *Set {
	opts.Runtime = opts.Runtime.WithDefaults()
	if opts.MaxStaleness <= 0 {
		opts.MaxStaleness = DefaultMaxStaleness
	}
	s := &Set{opts: opts, t: table{}, done: make(chan struct{})}
	if opts.Redis == nil {
		close(s.done)
		s.stop = func() {}
		return s
	}
	s.redis = newShared(opts.Redis)
	if err := s.merge(ctx); err != nil {
		opts.Logger.WarnContext(ctx, "freeze: the shared set could not be read; refusing until it can", "error", err)
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	go s.loop(loopCtx)
	return s
}

// Close stops the background merging.
func (s *Set) Close() error {
	s.stop()
	<-s.done
	return nil
}

// Check returns the entry that freezes the agent or one of the
// principals, nil when none is frozen; an empty name is skipped. With
// Redis it fails with ErrUnavailable when this replica's copy is older
// than MaxStaleness: the caller must refuse.
func (s *Set) Check(ctx context.Context, agent string, principals ...string) (*Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.redis != nil && s.opts.Now().Sub(s.trusted) > s.opts.MaxStaleness {
		return nil, fmt.Errorf("%w: the shared set was not read within %s", ErrUnavailable, s.opts.MaxStaleness)
	}
	if agent != "" {
		if e, ok := s.t[string(Agent)+":"+agent]; ok && e.Frozen {
			return &e, nil
		}
	}
	for _, p := range principals {
		if e, ok := s.t[string(Principal)+":"+p]; ok && p != "" && e.Frozen {
			return &e, nil
		}
	}
	return nil, nil
}

// Ready reports whether Check can answer.
func (s *Set) Ready(ctx context.Context) error {
	_, err := s.Check(ctx, "")
	return err
}

// List returns what is frozen, sorted by kind and name.
func (s *Set) List() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.frozen()
}

// Freeze freezes kind name for operator by, who must give a reason. The
// change holds in this replica at once. With Redis it is then written to
// the shared copy, and Freeze returns MaxStaleness after that, when no
// replica can still answer without it; an error wrapping ErrUnavailable
// says the write failed (the change is written back at a later merge)
// and one wrapping ctx's error that the wait was cut short.
func (s *Set) Freeze(ctx context.Context, kind Kind, name, by, reason string) (Entry, error) {
	e, err := s.change(kind, name, by, reason, true)
	if err == nil {
		s.opts.Metrics.ObserveFreezeAction(string(kind), metrics.ActionFreeze)
	}
	if err != nil || s.redis == nil {
		return e, err
	}
	if err := s.redis.write(ctx, e, ""); err != nil {
		return e, err
	}
	t := time.NewTimer(s.opts.MaxStaleness)
	defer t.Stop()
	select {
	case <-t.C:
		return e, nil
	case <-ctx.Done():
		return e, fmt.Errorf("freeze: stored, but the wait for every replica was cut short: %w", ctx.Err())
	}
}

// Unfreeze lifts the freeze of kind name (ErrNotFrozen when there is
// none), for operator by, who must give a reason. With Redis the change
// is written to the shared copy; replicas apply it within MaxStaleness.
func (s *Set) Unfreeze(ctx context.Context, kind Kind, name, by, reason string) (Entry, error) {
	e, err := s.change(kind, name, by, reason, false)
	if err == nil {
		s.opts.Metrics.ObserveFreezeAction(string(kind), metrics.ActionUnfreeze)
	}
	if err != nil || s.redis == nil {
		return e, err
	}
	return e, s.redis.write(ctx, e, "")
}

// change records a change in this replica's memory.
func (s *Set) change(kind Kind, name, by, reason string, frozen bool) (Entry, error) {
	e := Entry{Kind: kind, Name: name, Frozen: frozen, By: by, Reason: reason,
		At: s.opts.Now().UTC().Truncate(time.Millisecond), Nonce: newNonce()}
	if err := e.check(); err != nil {
		return Entry{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.t[e.key()]
	if !frozen && (!ok || !cur.Frozen) {
		return Entry{}, fmt.Errorf("%w: %s %s", ErrNotFrozen, kind, name)
	}
	if ok && !e.At.After(cur.At) {
		// A clock behind the last change's: order after it anyway.
		e.At = cur.At.Add(time.Millisecond)
	}
	s.t.merge(e)
	s.report()
	return e, nil
}

// apply merges one change read from the shared copy.
func (s *Set) apply(e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t.merge(e) {
		s.report()
	}
}

// report sets the frozen gauges from the table; s.mu must be held.
func (s *Set) report() {
	var agents, principals int
	for _, e := range s.t {
		switch {
		case !e.Frozen:
		case e.Kind == Agent:
			agents++
		case e.Kind == Principal:
			principals++
		}
	}
	s.opts.Metrics.SetFrozen(agents, principals)
}
