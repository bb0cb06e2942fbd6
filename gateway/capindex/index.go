package capindex

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned when no live record has the capability id.
var ErrNotFound = errors.New("capindex: capability not found")

// ErrUnavailable is wrapped when the index cannot be reached.
var ErrUnavailable = errors.New("capindex: index unavailable")

// Record is one issued capability.
type Record struct {
	CapabilityID string `json:"id"`
	// Token is the capability token as issued.
	Token string `json:"token"`
	// Principal is the user principal the capability acts for.
	Principal string `json:"principal"`
	// Holder is the principal allowed to present it.
	Holder string `json:"holder"`
	// Agent is the audience agent.
	Agent string `json:"agent"`
	// Grant is the grant it was issued under.
	Grant string `json:"grant"`
	// ParentID is the capability it was attenuated from, if any.
	ParentID string `json:"parentId,omitempty"`
	// DisplayNames maps each resource handle to its display name.
	DisplayNames map[string]string `json:"displayNames,omitempty"`
	IssuedAt     time.Time         `json:"issuedAt"`
	Expires      time.Time         `json:"expires"`
}

// Index stores issued capabilities until they expire.
type Index interface {
	// Put stores r until r.Expires.
	Put(ctx context.Context, r Record) error
	// Get returns the live record for id, or ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// ListByPrincipal returns the live records whose principal or holder
	// is p, in issue order.
	ListByPrincipal(ctx context.Context, p string) ([]Record, error)
	// List returns the live records matching f, in issue order, at most
	// f's limit (see Filter.Max).
	List(ctx context.Context, f Filter) ([]Record, error)
	// Close releases the index's resources.
	Close() error
}
