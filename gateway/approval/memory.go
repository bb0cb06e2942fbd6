package approval

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/capgate/capgate/policy"
)

// Memory is the Backend of a single replica.
type Memory struct {
	now func() time.Time

	mu   sync.Mutex
	reqs map[string]Request
	puts int
}

var _ Backend = (*Memory)(nil)

// NewMemory returns an empty in-memory backend using the clock now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: now, reqs: map[string]Request{}}
}

// Put stores r; requests past their retention are pruned every so often.
func (m *Memory) Put(_ context.Context, r Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs[r.ID] = clone(r)
	m.puts++
	if m.puts%256 == 0 {
		now := m.now()
		for id, x := range m.reqs {
			if !now.Before(x.Deadline.Add(Retention)) {
				delete(m.reqs, id)
			}
		}
	}
	return nil
}

// Get returns the stored request.
func (m *Memory) Get(_ context.Context, id string) (Request, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.live(id)
	if !ok {
		return Request{}, ErrNotFound
	}
	return clone(r), nil
}

func (m *Memory) live(id string) (Request, bool) {
	r, ok := m.reqs[id]
	return r, ok && m.now().Before(r.Deadline.Add(Retention))
}

// List returns the stored requests keep accepts, newest first.
func (m *Memory) List(_ context.Context, keep func(*Request) bool, limit int) ([]Request, error) {
	m.mu.Lock()
	var out []Request
	for id := range m.reqs {
		if r, ok := m.live(id); ok && keep(&r) {
			out = append(out, clone(r))
		}
	}
	m.mu.Unlock()
	sortNewest(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Update applies fn to the stored request under the lock.
func (m *Memory) Update(_ context.Context, id string, fn func(*Request) (bool, error)) (Request, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.live(id)
	if !ok {
		return Request{}, ErrNotFound
	}
	r = clone(r)
	write, err := fn(&r)
	if write {
		m.reqs[id] = clone(r)
	}
	return r, err
}

// clone copies r deeply enough that callers never share slices with the
// stored copy.
func clone(r Request) Request {
	gs := make([]Grant, len(r.Grants))
	for i, g := range r.Grants {
		g.Operations = append([]string(nil), g.Operations...)
		g.Resources = append([]policy.Resource(nil), g.Resources...)
		gs[i] = g
	}
	r.Grants = gs
	return r
}

func sortNewest(rs []Request) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].CreatedAt.Equal(rs[j].CreatedAt) {
			return rs[i].ID > rs[j].ID
		}
		return rs[i].CreatedAt.After(rs[j].CreatedAt)
	})
}
