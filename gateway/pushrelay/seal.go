package pushrelay

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
)

// KeyInfo is the HKDF label under which the gateway derives the relay
// store's key from its capability key set.
const KeyInfo = "capgate push relay record v1"

// MinKeyBytes is the shortest key a Store accepts.
const MinKeyBytes = 32

// ErrForged means a stored record does not open under the relay key:
// someone other than a gateway wrote it, or moved it. It is never used.
var ErrForged = errors.New("pushrelay: stored record fails its seal")

// backend stores sealed records by agent and relay id, lists a task's,
// and bounds how many one owner holds: put refuses a new record of an
// owner at its bound with a *PrincipalFullError, atomically with every
// other put of the same storage.
type backend interface {
	put(ctx context.Context, s slot, sealed []byte) error
	get(ctx context.Context, agent, id string) ([]byte, error)
	byTask(ctx context.Context, agent, task string) (map[string][]byte, error)
	del(ctx context.Context, s slot) error
}

// sealed is a Store over a backend that seals every record with
// AES-256-GCM, the record's agent and id bound as additional data.
type sealed struct {
	b    backend
	aead cipher.AEAD
}

func newSealed(b backend, key []byte) (*sealed, error) {
	if len(key) < MinKeyBytes {
		return nil, fmt.Errorf("pushrelay: the record key must be at least %d bytes", MinKeyBytes)
	}
	k, err := hkdf.Key(sha256.New, key, nil, KeyInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("pushrelay: deriving the record key: %w", err)
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, fmt.Errorf("pushrelay: record cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("pushrelay: record cipher: %w", err)
	}
	return &sealed{b: b, aead: aead}, nil
}

func boundTo(agent, id string) []byte { return []byte(agent + "\x00" + id) }

func (s *sealed) seal(r Record) ([]byte, error) {
	plain, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("pushrelay: encoding a record: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("pushrelay: reading randomness: %w", err)
	}
	return s.aead.Seal(nonce, nonce, plain, boundTo(r.Agent, r.ID)), nil
}

func (s *sealed) open(agent, id string, box []byte) (Record, error) {
	n := s.aead.NonceSize()
	if len(box) < n {
		return Record{}, fmt.Errorf("%w: %w", ErrUnavailable, ErrForged)
	}
	plain, err := s.aead.Open(nil, box[:n], box[n:], boundTo(agent, id))
	var r Record
	if err != nil || json.Unmarshal(plain, &r) != nil || r.Agent != agent || r.ID != id {
		return Record{}, fmt.Errorf("%w: %w", ErrUnavailable, ErrForged)
	}
	return r, nil
}

// Put implements Store.
func (s *sealed) Put(ctx context.Context, r Record) error {
	box, err := s.seal(r)
	if err != nil {
		return err
	}
	return s.b.put(ctx, slotOf(r), box)
}

// Get implements Store.
func (s *sealed) Get(ctx context.Context, agent, id string) (Record, error) {
	box, err := s.b.get(ctx, agent, id)
	if err != nil {
		return Record{}, err
	}
	return s.open(agent, id, box)
}

// ByTask implements Store: a record that does not open fails the whole
// listing, as a reader cannot tell what it held.
func (s *sealed) ByTask(ctx context.Context, agent, task string) ([]Record, error) {
	boxes, err := s.b.byTask(ctx, agent, task)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(boxes))
	for id, box := range boxes {
		r, err := s.open(agent, id, box)
		if err != nil {
			return nil, err
		}
		if r.Task == task {
			out = append(out, r)
		}
	}
	return out, nil
}

// Delete implements Store.
func (s *sealed) Delete(ctx context.Context, r Record) error {
	return s.b.del(ctx, slotOf(r))
}
