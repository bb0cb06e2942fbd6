package revocation

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultPruneInterval is how often expired entries are dropped from an
// in-memory set when the options leave it zero.
const DefaultPruneInterval = time.Minute

// MemoryOptions configures NewMemory. The zero value is ready to use.
type MemoryOptions struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PruneInterval is how often a janitor drops expired entries; zero or
	// negative means DefaultPruneInterval. Expired entries stop matching at
	// once either way: pruning only reclaims memory.
	PruneInterval time.Duration
}

// Memory is the embedded store: one process, no network. It is the default
// for a single replica and the quickstart. Its Check takes a read lock on
// one of 64 shards per id and does not allocate.
type Memory struct {
	set     *set
	now     func() time.Time
	janitor *janitor
	closed  atomic.Bool
}

// NewMemory returns an empty in-memory store whose janitor runs until Close.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PruneInterval <= 0 {
		opts.PruneInterval = DefaultPruneInterval
	}
	m := &Memory{set: newSet(), now: opts.Now}
	m.janitor = startJanitor(m.set, opts.PruneInterval, opts.Now)
	return m
}

// Revoke implements Store.
func (m *Memory) Revoke(_ context.Context, id string, until time.Time) error {
	if err := m.usable(); err != nil {
		return err
	}
	if err := validateID(id); err != nil {
		return err
	}
	if err := validateTime("until", until); err != nil {
		return err
	}
	m.set.addID(id, ceilMilli(until))
	return nil
}

// RevokePrincipal implements Store.
func (m *Memory) RevokePrincipal(_ context.Context, principal string, before, until time.Time) error {
	if err := m.usable(); err != nil {
		return err
	}
	c, err := newCutoff(principal, before, until)
	if err != nil {
		return err
	}
	m.set.addPrincipal(principal, c)
	return nil
}

// Check implements Store. It does not allocate for a chain that is not
// revoked.
func (m *Memory) Check(_ context.Context, q Query) (Result, error) {
	if err := m.usable(); err != nil {
		return Result{}, err
	}
	if err := validateQuery(q); err != nil {
		return Result{}, err
	}
	return m.set.check(q, m.now()), nil
}

// Len returns the number of entries held, expired ones not yet pruned
// included; for metrics.
func (m *Memory) Len() int { return m.set.len() }

// Close stops the janitor. It is idempotent.
func (m *Memory) Close() error {
	m.closed.Store(true)
	m.janitor.close()
	return nil
}

func (m *Memory) usable() error {
	if m.closed.Load() {
		return fmt.Errorf("%w: %w", ErrUnavailable, ErrClosed)
	}
	return nil
}

// newCutoff validates the arguments of RevokePrincipal.
func newCutoff(principal string, before, until time.Time) (cutoff, error) {
	if err := validatePrincipal(principal); err != nil {
		return cutoff{}, err
	}
	if err := validateTime("before", before); err != nil {
		return cutoff{}, err
	}
	if err := validateTime("until", until); err != nil {
		return cutoff{}, err
	}
	return cutoff{beforeMs: ceilMilli(before), untilMs: ceilMilli(until)}, nil
}
