package capindex

import (
	"context"
	"math"
	"sync"
	"time"
)

// Memory is the in-memory index of the embedded default: one replica.
type Memory struct {
	now func() time.Time

	mu      sync.RWMutex
	records map[string]Record
	puts    int
}

var _ Index = (*Memory)(nil)

// NewMemory returns an empty in-memory index using the clock now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{now: now, records: map[string]Record{}}
}

// Put stores r. Expired records are pruned every so often on Put, so the
// index's size follows the number of live capabilities.
func (m *Memory) Put(_ context.Context, r Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[r.CapabilityID] = r
	m.puts++
	if m.puts%1024 == 0 {
		m.pruneLocked()
	}
	return nil
}

// Get returns the live record for id.
func (m *Memory) Get(_ context.Context, id string) (Record, error) {
	m.mu.RLock()
	r, ok := m.records[id]
	m.mu.RUnlock()
	if !ok || !m.now().Before(r.Expires) {
		return Record{}, ErrNotFound
	}
	return r, nil
}

// ListByPrincipal returns the live records of principal or holder p.
func (m *Memory) ListByPrincipal(ctx context.Context, p string) ([]Record, error) {
	return m.list(Filter{Principal: p}, math.MaxInt)
}

// List returns the live records matching f, the newest f.Max() of them.
func (m *Memory) List(_ context.Context, f Filter) ([]Record, error) {
	return m.list(f, f.Max())
}

func (m *Memory) list(f Filter, max int) ([]Record, error) {
	now := m.now()
	m.mu.RLock()
	var out []Record
	for _, r := range m.records {
		if f.Match(r) && now.Before(r.Expires) {
			out = append(out, r)
		}
	}
	m.mu.RUnlock()
	return sortAndCut(out, max), nil
}

// Len returns the number of records held, live or not yet pruned.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.records)
}

func (m *Memory) pruneLocked() {
	now := m.now()
	for id, r := range m.records {
		if !now.Before(r.Expires) {
			delete(m.records, id)
		}
	}
}

// Close does nothing; it exists to satisfy Index.
func (m *Memory) Close() error { return nil }
