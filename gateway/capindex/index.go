package capindex

import (
	"context"
	"errors"
	"time"

	"github.com/capgate/capgate/captoken"
)

// ErrNotFound is returned when no live record has the capability id.
var ErrNotFound = errors.New("capindex: capability not found")

// ErrUnavailable is wrapped when the index cannot be reached.
var ErrUnavailable = errors.New("capindex: index unavailable")

// Record is one issued capability.
type Record struct {
	CapabilityID string
	// Token is the capability token as issued, in binary; Token.String()
	// is the compact token. Whoever reads a record verifies its token
	// (captoken.Verifier.VerifyPacked) before using it.
	Token captoken.Packed
	// Principal is the user principal the capability acts for.
	Principal string
	// Holder is the principal allowed to present it.
	Holder string
	// Agent is the audience agent.
	Agent string
	// Grant is the grant it was issued under.
	Grant string
	// ParentID is the capability it was attenuated from, if any.
	ParentID string
	// DisplayNames are the display names of the token's resource handles,
	// in the token's order ("" for a handle without one). A record read
	// from an index may share this slice with the index and with other
	// records: it must not be modified.
	DisplayNames []string
	// IssuedAt and Expires are kept to the millisecond.
	IssuedAt time.Time
	Expires  time.Time
}

// Index stores issued capabilities until they expire.
type Index interface {
	// Put stores r until r.Expires.
	Put(ctx context.Context, r Record) error
	// Get returns the live record for id, or ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// ListByPrincipal returns the live records whose principal or holder
	// is p, in issue order.
	//
	// When some of them cannot be read, it returns the readable ones with
	// an *UnreadableError (wrapping ErrUnreadable) naming the others,
	// among them those whose record is missing before its capability
	// expires; any other error comes with no records, and Partial tells
	// the two apart. A record that expired meanwhile is gone, not
	// unreadable.
	ListByPrincipal(ctx context.Context, p string) ([]Record, error)
	// List returns the live records matching f, in issue order, at most
	// f's limit (see Filter.Max). Unreadable records are reported as
	// ListByPrincipal reports them, whatever f's agent and grant, which
	// they cannot be matched against; f's limit bounds only the readable
	// records returned.
	List(ctx context.Context, f Filter) ([]Record, error)
	// Close releases the index's resources.
	Close() error
}
