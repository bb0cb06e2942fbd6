package revocationtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation"
)

// Factory returns a new, empty store that reads time from clock.Now. The
// suite closes the store; the factory registers any other cleanup with t.
// Stores sharing a backend must not see each other's revocations (give
// each a fresh key prefix).
type Factory func(t *testing.T, clock *Clock) revocation.Store

// testCase is one conformance check.
type testCase struct {
	name string
	run  func(t *testing.T, s revocation.Store, c *Clock)
}

// Run runs the whole conformance suite, one subtest per case, each on a
// fresh store from newStore.
func Run(t *testing.T, newStore Factory) {
	t.Helper()
	var cases []testCase
	for _, group := range [][]testCase{chainCases(), timeCases(), principalCases(), cutoffTimeCases(), miscCases()} {
		cases = append(cases, group...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock()
			s := newStore(t, clock)
			t.Cleanup(func() { _ = s.Close() })
			tc.run(t, s, clock)
		})
	}
}

// ctx returns a context for one store call.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func revoke(t *testing.T, s revocation.Store, id string, until time.Time) {
	t.Helper()
	if err := s.Revoke(ctx(t), id, until); err != nil {
		t.Fatalf("Revoke(%q, %v) = %v", id, until, err)
	}
}

func revokePrincipal(t *testing.T, s revocation.Store, p string, before, until time.Time) {
	t.Helper()
	if err := s.RevokePrincipal(ctx(t), p, before, until); err != nil {
		t.Fatalf("RevokePrincipal(%q, %v, %v) = %v", p, before, until, err)
	}
}

func check(t *testing.T, s revocation.Store, q revocation.Query) revocation.Result {
	t.Helper()
	res, err := s.Check(ctx(t), q)
	if err != nil {
		t.Fatalf("Check(%+v) = %v", q, err)
	}
	return res
}

// wantRevoked asserts q is revoked by by.
func wantRevoked(t *testing.T, s revocation.Store, q revocation.Query, by string) {
	t.Helper()
	if res := check(t, s, q); !res.Revoked || res.By != by {
		t.Fatalf("Check(%+v) = %+v, want revoked by %q", q, res, by)
	}
}

// wantAllowed asserts q is not revoked.
func wantAllowed(t *testing.T, s revocation.Store, q revocation.Query) {
	t.Helper()
	if res := check(t, s, q); res.Revoked || res.By != "" {
		t.Fatalf("Check(%+v) = %+v, want not revoked", q, res)
	}
}

// eventuallyAllowed polls q until it is no longer revoked, for entries that
// expire by the backend's own clock.
func eventuallyAllowed(t *testing.T, s revocation.Store, q revocation.Query) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for check(t, s, q).Revoked {
		if time.Now().After(deadline) {
			t.Fatalf("Check(%+v) still revoked long after its until", q)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outlive makes sure an entry written with a short TTL would be gone by
// now if the store had kept that TTL: the clock jumps past it and real
// time passes beyond it too.
func outlive(c *Clock, ttl time.Duration) {
	c.Advance(ttl + time.Second)
	time.Sleep(ttl + 400*time.Millisecond)
}

// ids builds a query on a chain.
func ids(chain ...string) revocation.Query { return revocation.Query{IDs: chain} }

// wantErr asserts err matches target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s = %v, want %v", what, err, target)
	}
}
