package a2efront

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/capgate/capgate/gateway/recordseal"
)

// RecordKeyInfo is the HKDF label under which the gateway derives
// Deps.RecordKey from its capability key set.
const RecordKeyInfo = "capgate a2e session record mac v1"

// MinRecordKeyBytes is the shortest Deps.RecordKey accepted.
const MinRecordKeyBytes = recordseal.MinKeyBytes

// sealedStore wraps a SessionStore so that every session record carries a
// MAC (recordseal, as approval requests do): Create and Update seal, Get
// verifies. A record someone else wrote
// into the backing store (a Redis writer widening Accepted, say) fails
// with ErrRecordForged instead of granting anything.
type sealedStore struct {
	SessionStore
	sealer *recordseal.Sealer
}

// newSealedStore wraps st with key, or with a fresh random key when key
// is empty (enough for one replica; replicas sharing a store must share
// the key, or they refuse each other's records).
func newSealedStore(st SessionStore, key []byte) (*sealedStore, error) {
	if len(key) == 0 {
		key = make([]byte, MinRecordKeyBytes)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("a2efront: making a record key: %w", err)
		}
	}
	sealer, err := recordseal.New(key)
	if errors.Is(err, recordseal.ErrShortKey) {
		return nil, fmt.Errorf("%w: Deps.RecordKey is shorter than %d bytes", ErrInvalidConfig, MinRecordKeyBytes)
	}
	if err != nil {
		return nil, err
	}
	return &sealedStore{SessionStore: st, sealer: sealer}, nil
}

// mac computes the MAC of s over everything but Rev and MAC itself.
func (st *sealedStore) mac(s Session) (string, error) {
	s.Rev, s.MAC = 0, ""
	return st.sealer.MAC(s)
}

func (st *sealedStore) seal(s Session) (Session, error) {
	m, err := st.mac(s)
	s.MAC = m
	return s, err
}

// Create implements SessionStore.
func (st *sealedStore) Create(ctx context.Context, s Session, lim Limits) error {
	s, err := st.seal(s)
	if err != nil {
		return err
	}
	return st.SessionStore.Create(ctx, s, lim)
}

// Update implements SessionStore.
func (st *sealedStore) Update(ctx context.Context, s Session) (Session, error) {
	s, err := st.seal(s)
	if err != nil {
		return Session{}, err
	}
	return st.SessionStore.Update(ctx, s)
}

// Get implements SessionStore: a record whose MAC does not verify is
// ErrRecordForged.
func (st *sealedStore) Get(ctx context.Context, id string) (Session, error) {
	s, err := st.SessionStore.Get(ctx, id)
	if err != nil {
		return Session{}, err
	}
	covered := s
	covered.Rev, covered.MAC = 0, ""
	if !st.sealer.Verify(covered, s.MAC) {
		return Session{}, ErrRecordForged
	}
	return s, nil
}

// sessionRef names a session in logs, audit events and metrics without
// revealing its id, which is a bearer secret: the first 64 bits of the
// id's SHA-256, the same on every replica.
func sessionRef(id string) string {
	sum := sha256.Sum256([]byte("capgate a2e session ref\x00" + id))
	return hex.EncodeToString(sum[:8])
}
