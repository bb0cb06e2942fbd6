package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/capgate/capgate/gateway/recordseal"
)

// RecordKeyInfo is the HKDF label under which the gateway derives the key
// of Sealed from its capability key set.
const RecordKeyInfo = "capgate approval record mac v1"

// MinRecordKeyBytes is the shortest key Sealed accepts.
const MinRecordKeyBytes = recordseal.MinKeyBytes

// ErrForged means a stored request's MAC did not verify: someone other
// than a gateway wrote it. Such a request is never decided or redeemed.
var ErrForged = errors.New("approval: stored request fails its MAC")

// sealed authenticates every stored request with an HMAC-SHA256, so that
// whoever can write the shared store (a Redis, say) still cannot approve
// a request or widen what it holds.
type sealed struct {
	b      Backend
	sealer *recordseal.Sealer
}

// Sealed wraps b so that every request it stores carries a MAC under key,
// and every request it reads must verify. Replicas sharing a store must
// share the key.
func Sealed(b Backend, key []byte) (Backend, error) {
	sealer, err := recordseal.New(key)
	if err != nil {
		return nil, fmt.Errorf("approval: record key must be at least %d bytes: %w", MinRecordKeyBytes, err)
	}
	return &sealed{b: b, sealer: sealer}, nil
}

// mac is r's MAC (recordseal), over everything but the MAC itself.
func (s *sealed) mac(r Request) string {
	r.MAC = ""
	m, _ := s.sealer.MAC(r) // a Request always encodes
	return m
}

func (s *sealed) verify(r *Request) error {
	covered := *r
	covered.MAC = ""
	if !s.sealer.Verify(covered, r.MAC) {
		return fmt.Errorf("%w: %w (request %s)", ErrUnavailable, ErrForged, r.ID)
	}
	return nil
}

// Put seals r and stores it.
func (s *sealed) Put(ctx context.Context, r Request) error {
	r.MAC = s.mac(r)
	return s.b.Put(ctx, r)
}

// Get returns the stored request if its MAC verifies.
func (s *sealed) Get(ctx context.Context, id string) (Request, error) {
	r, err := s.b.Get(ctx, id)
	if err != nil {
		return Request{}, err
	}
	if err := s.verify(&r); err != nil {
		return Request{}, err
	}
	return r, nil
}

// List returns the stored requests whose MAC verifies and keep accepts.
// When the backend read records that fail their MAC, it returns those
// that verify with a *ForgedError naming the others, whatever keep would
// have said of them (their fields cannot be trusted, their status least
// of all). Forged records do not count toward limit; those named are the
// ones the backend read (Memory reads every record; Redis stops, newest
// first, once it holds limit requests). A backend error is returned as
// it is.
func (s *sealed) List(ctx context.Context, keep func(*Request) bool, limit int) ([]Request, error) {
	var forged []string
	rs, err := s.b.List(ctx, func(r *Request) bool {
		if s.verify(r) != nil {
			forged = append(forged, r.ID)
			return false
		}
		return keep(r)
	}, limit)
	if err != nil || len(forged) == 0 {
		return rs, err
	}
	slices.Sort(forged)
	return rs, &ForgedError{IDs: slices.Compact(forged)}
}

// Update verifies the stored request before fn sees it and seals what fn
// writes.
func (s *sealed) Update(ctx context.Context, id string, fn func(*Request) (bool, error)) (Request, error) {
	r, err := s.b.Update(ctx, id, func(r *Request) (bool, error) {
		if err := s.verify(r); err != nil {
			return false, err
		}
		write, err := fn(r)
		if write {
			r.MAC = s.mac(*r)
		}
		return write, err
	})
	if errors.Is(err, ErrForged) {
		return Request{}, err
	}
	return r, err
}
