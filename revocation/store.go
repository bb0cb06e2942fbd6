package revocation

import (
	"context"
	"fmt"
	"math"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on what a store accepts. They bound the cost of a Check and the
// size of every key; anything beyond them is refused, never truncated.
const (
	// MaxIDLength is the longest revocation id accepted, in bytes.
	MaxIDLength = 256
	// MaxPrincipalLength is the longest principal accepted, in bytes.
	MaxPrincipalLength = 512
	// MaxChainLength is the most revocation ids one Query may carry (a
	// capability's own id plus its ancestors').
	MaxChainLength = 64
)

// PrincipalPrefix starts Result.By when a principal cutoff matched.
const PrincipalPrefix = "principal:"

// Query asks about one capability: every revocation id in its chain and the
// principal it acts for.
type Query struct {
	// IDs are the capability's own revocation id and those of all its
	// ancestors, in any order (captoken.Claims.RevocationIDs gives them).
	// At least one is required.
	IDs []string
	// Principal is the user principal the capability acts for. Empty skips
	// the principal cutoff check.
	Principal string
	// IssuedAt is the capability's issued-at time. A zero IssuedAt counts as
	// issued before every cutoff (fail closed).
	IssuedAt time.Time
}

// Result is the answer for a whole chain. A revoked capability is a Result,
// not an error.
type Result struct {
	// Revoked reports that an id of the chain or the principal cutoff matched.
	Revoked bool
	// By names what matched: the revocation id, or PrincipalPrefix followed
	// by the principal. Empty when Revoked is false.
	By string
}

// Store records revocations and answers whether a capability chain is revoked.
//
// Every implementation fails closed: when it cannot give a trustworthy
// answer, Check returns an error that wraps ErrUnavailable. Callers MUST
// treat ANY error from Check as "not allowed"; only (Result{Revoked: false},
// nil) allows a capability.
//
// All times are kept at millisecond precision, rounded in the direction
// that revokes more.
type Store interface {
	// Revoke revokes id and keeps it at least until `until`, which must be
	// no earlier than the expiry (plus the verifier's leeway) of every
	// token that references id. A later call may extend the time, never
	// shorten it. An until already in the past is a no-op: no token can
	// reference id any more.
	Revoke(ctx context.Context, id string, until time.Time) error
	// RevokePrincipal revokes every capability of principal issued strictly
	// before `before`, keeping the cutoff at least until `until`. The
	// cutoff only moves later and until only extends.
	RevokePrincipal(ctx context.Context, principal string, before, until time.Time) error
	// Check answers for the whole chain in one call. An error wraps
	// ErrUnavailable (or an ErrInvalid… for a malformed query) and MUST be
	// treated as "not allowed".
	Check(ctx context.Context, q Query) (Result, error)
	// Close releases the store's background work. Calls after Close fail
	// with ErrClosed (wrapped in ErrUnavailable). Close is idempotent.
	Close() error
}

var (
	_ Store = (*Memory)(nil)
	_ Store = (*Redis)(nil)
	_ Store = (*Synced)(nil)
)

// validateID checks a revocation id: 1..MaxIDLength bytes of printable
// ASCII without space.
func validateID(id string) error {
	if id == "" || len(id) > MaxIDLength {
		return fmt.Errorf("%w: length %d", ErrInvalidID, len(id))
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: byte %#x at %d", ErrInvalidID, c, i)
		}
	}
	return nil
}

// validatePrincipal checks a principal: 1..MaxPrincipalLength bytes of
// UTF-8 without control characters.
func validatePrincipal(p string) error {
	if p == "" || len(p) > MaxPrincipalLength {
		return fmt.Errorf("%w: length %d", ErrInvalidPrincipal, len(p))
	}
	for i, r := range p {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return fmt.Errorf("%w: rune %U at %d", ErrInvalidPrincipal, r, i)
		}
	}
	return nil
}

// validateQuery checks a Query before any lookup.
func validateQuery(q Query) error {
	if len(q.IDs) == 0 || len(q.IDs) > MaxChainLength {
		return fmt.Errorf("%w: %d ids, want 1..%d", ErrInvalidQuery, len(q.IDs), MaxChainLength)
	}
	for _, id := range q.IDs {
		if err := validateID(id); err != nil {
			return err
		}
	}
	if q.Principal != "" {
		return validatePrincipal(q.Principal)
	}
	return nil
}

// Bounds of the times a store accepts (unix milliseconds).
var (
	minTime = time.Unix(0, 0)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// validateTime refuses zero and out-of-range times.
func validateTime(name string, t time.Time) error {
	if t.IsZero() || t.Before(minTime) || t.After(maxTime) {
		return fmt.Errorf("%w: %s %v", ErrInvalidTime, name, t)
	}
	return nil
}

// ceilMilli returns t in unix milliseconds, rounded up. Cutoffs and expiries
// are rounded up so that rounding only ever revokes more.
func ceilMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.After(time.UnixMilli(ms)) {
		ms++
	}
	return ms
}

// issuedMilli returns the issued-at time in unix milliseconds, rounded
// down; a zero time maps below every cutoff.
func issuedMilli(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixMilli()
}

// forever is the expiry of an entry that Redis keeps without a TTL.
const forever = math.MaxInt64
