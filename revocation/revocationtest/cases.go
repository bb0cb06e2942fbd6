package revocationtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/revocation"
)

// Revocation ids of a delegation tree used by the chain cases:
//
//	root ── mid ── leaf
//	   └─── other ── otherLeaf
const (
	root      = "rv_root"
	mid       = "rv_mid"
	leaf      = "rv_leaf"
	other     = "rv_other"
	otherLeaf = "rv_otherLeaf"
)

// chain returns a capability's query: its own id, then its ancestors'
// root first, as captoken.Claims.RevocationIDs orders them.
func chain(own string, ancestors ...string) revocation.Query {
	return ids(append([]string{own}, ancestors...)...)
}

func chainCases() []testCase {
	hour := time.Hour
	return []testCase{
		{"RevokeThenCheckOwnID", func(t *testing.T, s revocation.Store, c *Clock) {
			wantAllowed(t, s, ids(leaf))
			revoke(t, s, leaf, c.Now().Add(hour))
			wantRevoked(t, s, ids(leaf), leaf)
			wantAllowed(t, s, ids(mid))
		}},
		{"RevokedAncestorKillsEveryDescendant", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, root, c.Now().Add(hour))
			wantRevoked(t, s, chain(leaf, root, mid), root)
			wantRevoked(t, s, chain(mid, root), root)
			wantRevoked(t, s, chain(otherLeaf, root, other), root)
			wantRevoked(t, s, ids(root), root)
		}},
		{"SiblingUnaffected", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, mid, c.Now().Add(hour))
			wantAllowed(t, s, chain(other, root))
			wantAllowed(t, s, chain(otherLeaf, root, other))
		}},
		{"RevokedMiddleLinkKillsOnlyItsSubtree", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, mid, c.Now().Add(hour))
			wantRevoked(t, s, chain(mid, root), mid)
			wantRevoked(t, s, chain(leaf, root, mid), mid)
			wantAllowed(t, s, ids(root))
			wantAllowed(t, s, chain(other, root))
			wantAllowed(t, s, chain(otherLeaf, root, other))
		}},
		{"LongestChainAllowed", func(t *testing.T, s revocation.Store, c *Clock) {
			q := revocation.Query{}
			for i := range revocation.MaxChainLength {
				q.IDs = append(q.IDs, fmt.Sprintf("rv_link%02d", i))
			}
			wantAllowed(t, s, q)
			last := q.IDs[len(q.IDs)-1]
			revoke(t, s, last, c.Now().Add(hour))
			wantRevoked(t, s, q, last)
		}},
		{"RevokeIsIdempotent", func(t *testing.T, s revocation.Store, c *Clock) {
			until := c.Now().Add(hour)
			revoke(t, s, leaf, until)
			revoke(t, s, leaf, until)
			wantRevoked(t, s, ids(leaf), leaf)
		}},
	}
}

func timeCases() []testCase {
	return []testCase{
		{"ExtensionNeverShortens", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, leaf, c.Now().Add(time.Hour))
			revoke(t, s, leaf, c.Now().Add(300*time.Millisecond))
			outlive(c, 300*time.Millisecond)
			wantRevoked(t, s, ids(leaf), leaf)
		}},
		{"LaterUntilExtends", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, leaf, c.Now().Add(300*time.Millisecond))
			revoke(t, s, leaf, c.Now().Add(time.Hour))
			outlive(c, 300*time.Millisecond)
			wantRevoked(t, s, ids(leaf), leaf)
		}},
		{"EntryStopsMatchingAfterUntil", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, leaf, c.Now().Add(time.Second))
			revoke(t, s, mid, c.Now().Add(time.Hour))
			wantRevoked(t, s, ids(leaf), leaf)
			c.Advance(2 * time.Second)
			eventuallyAllowed(t, s, ids(leaf))
			wantRevoked(t, s, chain(leaf, root, mid), mid)
		}},
		{"UntilInThePastIsANoOp", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, leaf, c.Now().Add(-time.Second))
			wantAllowed(t, s, ids(leaf))
		}},
	}
}

// Principals and helpers of the principal cases.
const (
	alice   = "user:alice@example.com"
	bob     = "user:bob@example.com"
	byAlice = revocation.PrincipalPrefix + alice
)

// pq is a query for a capability of principal p issued at iat.
func pq(p string, iat time.Time) revocation.Query {
	return revocation.Query{IDs: []string{leaf}, Principal: p, IssuedAt: iat}
}

func principalCases() []testCase {
	return []testCase{
		{"PrincipalCutoff", func(t *testing.T, s revocation.Store, c *Clock) {
			t0 := c.Now().Truncate(time.Second)
			revokePrincipal(t, s, alice, t0, c.Now().Add(time.Hour))
			wantRevoked(t, s, pq(alice, t0.Add(-time.Second)), byAlice)
			wantRevoked(t, s, pq(alice, t0.Add(-time.Hour)), byAlice)
			wantAllowed(t, s, pq(alice, t0))
			wantAllowed(t, s, pq(alice, t0.Add(time.Second)))
			wantAllowed(t, s, pq(bob, t0.Add(-time.Second)))
			wantAllowed(t, s, ids(leaf))
		}},
		{"ZeroIssuedAtCountsAsBeforeEveryCutoff", func(t *testing.T, s revocation.Store, c *Clock) {
			revokePrincipal(t, s, alice, c.Now(), c.Now().Add(time.Hour))
			wantRevoked(t, s, pq(alice, time.Time{}), byAlice)
		}},
		{"RevokedIDWinsOverPrincipal", func(t *testing.T, s revocation.Store, c *Clock) {
			revokePrincipal(t, s, alice, c.Now(), c.Now().Add(time.Hour))
			revoke(t, s, leaf, c.Now().Add(time.Hour))
			wantRevoked(t, s, pq(alice, c.Now().Add(-time.Hour)), leaf)
		}},
		{"IDsAndPrincipalsDoNotCollide", func(t *testing.T, s revocation.Store, c *Clock) {
			// The same string as an id and as a principal names two
			// different things.
			revoke(t, s, alice, c.Now().Add(time.Hour))
			wantAllowed(t, s, pq(alice, c.Now().Add(-time.Hour)))
			revokePrincipal(t, s, leaf, c.Now(), c.Now().Add(time.Hour))
			wantAllowed(t, s, ids(leaf))
		}},
	}
}

func cutoffTimeCases() []testCase {
	return []testCase{
		{"CutoffOnlyMovesLater", func(t *testing.T, s revocation.Store, c *Clock) {
			t0 := c.Now().Truncate(time.Second)
			until := c.Now().Add(time.Hour)
			revokePrincipal(t, s, alice, t0, until)
			revokePrincipal(t, s, alice, t0.Add(-time.Hour), until)
			wantRevoked(t, s, pq(alice, t0.Add(-time.Second)), byAlice)
			revokePrincipal(t, s, alice, t0.Add(time.Hour), until)
			wantRevoked(t, s, pq(alice, t0.Add(time.Second)), byAlice)
			wantAllowed(t, s, pq(alice, t0.Add(2*time.Hour)))
		}},
		{"CutoffUntilNeverShortens", func(t *testing.T, s revocation.Store, c *Clock) {
			t0 := c.Now().Truncate(time.Second)
			revokePrincipal(t, s, alice, t0, c.Now().Add(time.Hour))
			revokePrincipal(t, s, alice, t0.Add(-time.Minute), c.Now().Add(300*time.Millisecond))
			outlive(c, 300*time.Millisecond)
			wantRevoked(t, s, pq(alice, t0.Add(-time.Second)), byAlice)
		}},
		{"CutoffStopsMatchingAfterUntil", func(t *testing.T, s revocation.Store, c *Clock) {
			t0 := c.Now()
			revokePrincipal(t, s, alice, t0, c.Now().Add(time.Second))
			wantRevoked(t, s, pq(alice, t0.Add(-time.Minute)), byAlice)
			c.Advance(2 * time.Second)
			eventuallyAllowed(t, s, pq(alice, t0.Add(-time.Minute)))
		}},
	}
}

func miscCases() []testCase {
	return []testCase{
		{"InvalidInputIsRefused", invalidInput},
		{"ConcurrentRevokesAndChecks", concurrent},
		{"ClosedStoreFailsClosed", func(t *testing.T, s revocation.Store, c *Clock) {
			revoke(t, s, leaf, c.Now().Add(time.Hour))
			if err := s.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			_, err := s.Check(ctx(t), ids(mid))
			wantErr(t, "Check after Close", err, revocation.ErrUnavailable)
			wantErr(t, "Revoke after Close", s.Revoke(ctx(t), mid, c.Now().Add(time.Hour)), revocation.ErrUnavailable)
			if err := s.Close(); err != nil {
				t.Fatalf("second Close() = %v", err)
			}
		}},
	}
}

func invalidInput(t *testing.T, s revocation.Store, c *Clock) {
	long := revocation.Query{}
	for i := range revocation.MaxChainLength + 1 {
		long.IDs = append(long.IDs, fmt.Sprintf("rv_%d", i))
	}
	queries := []struct {
		name string
		q    revocation.Query
		want error
	}{
		{"no ids", revocation.Query{Principal: "user:a"}, revocation.ErrInvalidQuery},
		{"chain too long", long, revocation.ErrInvalidQuery},
		{"empty id", ids(leaf, ""), revocation.ErrInvalidID},
		{"id with space", ids("rv_a b"), revocation.ErrInvalidID},
		{"id with newline", ids("rv_a\nb"), revocation.ErrInvalidID},
		{"id with NUL", ids("rv_a\x00"), revocation.ErrInvalidID},
		{"id not ASCII", ids("rv_é"), revocation.ErrInvalidID},
		{"id too long", ids("rv_" + strings.Repeat("a", revocation.MaxIDLength)), revocation.ErrInvalidID},
		{"principal with control", revocation.Query{IDs: []string{leaf}, Principal: "user:a\r\n"}, revocation.ErrInvalidPrincipal},
		{"principal not UTF-8", revocation.Query{IDs: []string{leaf}, Principal: "user:\xff"}, revocation.ErrInvalidPrincipal},
	}
	for _, tc := range queries {
		_, err := s.Check(ctx(t), tc.q)
		wantErr(t, "Check "+tc.name, err, tc.want)
	}
	hour := c.Now().Add(time.Hour)
	wantErr(t, "Revoke empty id", s.Revoke(ctx(t), "", hour), revocation.ErrInvalidID)
	wantErr(t, "Revoke id with space", s.Revoke(ctx(t), "rv_ x", hour), revocation.ErrInvalidID)
	wantErr(t, "Revoke zero until", s.Revoke(ctx(t), leaf, time.Time{}), revocation.ErrInvalidTime)
	wantErr(t, "RevokePrincipal empty", s.RevokePrincipal(ctx(t), "", c.Now(), hour), revocation.ErrInvalidPrincipal)
	wantErr(t, "RevokePrincipal zero before", s.RevokePrincipal(ctx(t), "user:a", time.Time{}, hour), revocation.ErrInvalidTime)
	wantErr(t, "RevokePrincipal zero until", s.RevokePrincipal(ctx(t), "user:a", c.Now(), time.Time{}), revocation.ErrInvalidTime)
	wantAllowed(t, s, ids(leaf))
}

// concurrent revokes from several goroutines while others check, and
// verifies every revocation is visible to its writer at once and to
// everyone at the end.
func concurrent(t *testing.T, s revocation.Store, c *Clock) {
	const writers, perWriter, readers = 8, 25, 4
	id := func(w, i int) string { return fmt.Sprintf("rv_w%d_%d", w, i) }
	until := c.Now().Add(time.Hour)
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	var reading, writing sync.WaitGroup
	for r := range readers {
		reading.Go(func() { checkUntil(t, s, stop, errs, r, id) })
	}
	for w := range writers {
		writing.Go(func() {
			for i := range perWriter {
				if err := s.Revoke(ctx(t), id(w, i), until); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
				if res, err := s.Check(ctx(t), chain(id(w, i), root)); err != nil || !res.Revoked || res.By != id(w, i) {
					errs <- fmt.Errorf("writer %d: own revocation of %s not visible: %+v, %v", w, id(w, i), res, err)
					return
				}
			}
		})
	}
	writing.Wait()
	close(stop)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range writers {
		for i := range perWriter {
			wantRevoked(t, s, chain(id(w, i), root), id(w, i))
		}
	}
}

// checkUntil checks chains of ids being revoked until stop is closed,
// reporting the first error.
func checkUntil(t *testing.T, s revocation.Store, stop <-chan struct{}, errs chan<- error, r int, id func(w, i int) string) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		q := chain(id(i%8, i%25), root, fmt.Sprintf("rv_r%d", r))
		if _, err := s.Check(ctx(t), q); err != nil {
			errs <- fmt.Errorf("reader %d: %w", r, err)
			return
		}
	}
}
