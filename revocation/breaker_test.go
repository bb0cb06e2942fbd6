package revocation

import (
	"errors"
	"testing"
	"time"
)

// fakeClock is a manual clock for unit tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBreaker(t *testing.T) {
	// Each step: advance the clock, then acquire; if allowed, release with ok.
	type step struct {
		advance time.Duration
		ok      bool
		wantErr error // from acquire
		want    BreakerState
	}
	fail := func(want BreakerState) step { return step{want: want} }
	succeed := func(want BreakerState) step { return step{ok: true, want: want} }
	refused := func(want BreakerState) step { return step{wantErr: ErrCircuitOpen, want: want} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"stays closed below threshold", []step{fail(BreakerClosed), fail(BreakerClosed), succeed(BreakerClosed), fail(BreakerClosed), fail(BreakerClosed)}},
		{"opens at threshold", []step{fail(BreakerClosed), fail(BreakerClosed), fail(BreakerOpen), refused(BreakerOpen)}},
		{"refuses during cool-down", []step{fail(BreakerClosed), fail(BreakerClosed), fail(BreakerOpen),
			{advance: 999 * time.Millisecond, wantErr: ErrCircuitOpen, want: BreakerOpen}}},
		{"probe success closes", []step{fail(BreakerClosed), fail(BreakerClosed), fail(BreakerOpen),
			{advance: time.Second, ok: true, want: BreakerClosed}, fail(BreakerClosed)}},
		{"probe failure reopens", []step{fail(BreakerClosed), fail(BreakerClosed), fail(BreakerOpen),
			{advance: time.Second, want: BreakerOpen}, refused(BreakerOpen),
			{advance: time.Second, ok: true, want: BreakerClosed}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1700000000, 0)}
			b := newBreaker(BreakerOptions{FailureThreshold: 3, CoolDown: time.Second}, clock.Now)
			for i, s := range tc.steps {
				clock.Advance(s.advance)
				probe, err := b.acquire()
				if !errors.Is(err, s.wantErr) || (s.wantErr == nil && err != nil) {
					t.Fatalf("step %d: acquire() = %v, want %v", i, err, s.wantErr)
				}
				if err == nil {
					b.release(probe, s.ok)
				}
				if st, _ := b.snapshot(); st != s.want {
					t.Fatalf("step %d: state %v, want %v", i, st, s.want)
				}
			}
		})
	}
}

func TestBreakerHalfOpenAdmitsOneProbe(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	b := newBreaker(BreakerOptions{FailureThreshold: 1, CoolDown: time.Second}, clock.Now)
	probe, _ := b.acquire()
	b.release(probe, false)
	clock.Advance(time.Second)
	probe, err := b.acquire()
	if err != nil || !probe {
		t.Fatalf("first acquire after cool-down = %v, %v; want the probe", probe, err)
	}
	if _, err := b.acquire(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("second acquire while probing = %v, want ErrCircuitOpen", err)
	}
	// A late success from a call admitted before the breaker opened must
	// not close it behind the probe's back.
	b.release(false, true)
	if st, _ := b.snapshot(); st != BreakerHalfOpen {
		t.Fatalf("state %v after a non-probe success, want half-open", st)
	}
	b.release(probe, true)
	if st, _ := b.snapshot(); st != BreakerClosed {
		t.Fatalf("state %v after the probe succeeded, want closed", st)
	}
}

func TestBreakerOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    BreakerOptions
		wantErr error
	}{
		{"zero", BreakerOptions{}, nil},
		{"set", BreakerOptions{FailureThreshold: 2, CoolDown: time.Second}, nil},
		{"negative threshold", BreakerOptions{FailureThreshold: -1}, ErrInvalidOptions},
		{"negative cool-down", BreakerOptions{CoolDown: -time.Second}, ErrInvalidOptions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.opts.Validate(); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Validate() = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestBreakerStateString(t *testing.T) {
	for st, want := range map[BreakerState]string{BreakerClosed: "closed", BreakerOpen: "open", BreakerHalfOpen: "half-open", 9: "BreakerState(9)"} {
		if got := st.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(st), got, want)
		}
	}
}
