package revocationtest

import (
	"sync"
	"time"
)

// Clock is the wall clock plus an offset that only Advance changes. It
// starts at the wall clock, so stores backed by a real Redis agree with it
// until a test advances it.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// NewClock returns a clock reading the wall clock.
func NewClock() *Clock { return &Clock{} }

// Now returns the current time of the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
