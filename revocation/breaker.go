package revocation

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Breaker defaults.
const (
	DefaultFailureThreshold = 5
	DefaultCoolDown         = time.Second
)

// BreakerOptions configures the circuit breaker in front of Redis. While
// open, calls fail at once with ErrCircuitOpen instead of waiting for a
// timeout, so a dead Redis does not add its timeout to every request.
type BreakerOptions struct {
	// FailureThreshold is the number of consecutive failures that opens
	// the breaker; zero means DefaultFailureThreshold.
	FailureThreshold int
	// CoolDown is how long the breaker stays open before it lets one probe
	// call through (half-open); zero means DefaultCoolDown.
	CoolDown time.Duration
}

// Validate reports every problem with o.
func (o BreakerOptions) Validate() error {
	var errs []error
	if o.FailureThreshold < 0 {
		errs = append(errs, fmt.Errorf("%w: breaker failure threshold %d is negative", ErrInvalidOptions, o.FailureThreshold))
	}
	if o.CoolDown < 0 {
		errs = append(errs, fmt.Errorf("%w: breaker cool-down %v is negative", ErrInvalidOptions, o.CoolDown))
	}
	return errors.Join(errs...)
}

func (o BreakerOptions) withDefaults() BreakerOptions {
	if o.FailureThreshold == 0 {
		o.FailureThreshold = DefaultFailureThreshold
	}
	if o.CoolDown == 0 {
		o.CoolDown = DefaultCoolDown
	}
	return o
}

// BreakerState is the state of a circuit breaker.
type BreakerState int

// Breaker states.
const (
	// BreakerClosed lets every call through.
	BreakerClosed BreakerState = iota
	// BreakerOpen refuses every call until the cool-down has passed.
	BreakerOpen
	// BreakerHalfOpen lets one probe call through; its outcome closes or
	// reopens the breaker.
	BreakerHalfOpen
)

// String returns "closed", "open" or "half-open".
func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("BreakerState(%d)", int(s))
}

// breaker is a consecutive-failure circuit breaker on an injected clock.
type breaker struct {
	opts BreakerOptions
	now  func() time.Time

	mu       sync.Mutex
	state    BreakerState
	failures int
	openedAt time.Time
	probing  bool
}

func newBreaker(opts BreakerOptions, now func() time.Time) *breaker {
	return &breaker{opts: opts.withDefaults(), now: now}
}

// acquire asks to make a call. probe reports that the call is the single
// half-open probe; err wraps ErrCircuitOpen when the call must not be made.
func (b *breaker) acquire() (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerClosed:
		return false, nil
	case BreakerOpen:
		if b.now().Sub(b.openedAt) < b.opts.CoolDown {
			return false, ErrCircuitOpen
		}
		b.state = BreakerHalfOpen
	}
	if b.probing {
		return false, ErrCircuitOpen
	}
	b.probing = true
	return true, nil
}

// release records the outcome of a call acquire let through.
func (b *breaker) release(probe, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	if ok {
		b.failures = 0
		if probe {
			b.state = BreakerClosed
		}
		return
	}
	b.failures++
	if probe || (b.state == BreakerClosed && b.failures >= b.opts.FailureThreshold) {
		b.state = BreakerOpen
		b.openedAt = b.now()
	}
}

// snapshot returns the state and the count of consecutive failures.
func (b *breaker) snapshot() (BreakerState, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state, b.failures
}
