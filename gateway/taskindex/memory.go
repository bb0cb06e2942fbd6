package taskindex

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Memory is the in-memory index of a single replica: at most max tasks,
// each for ttl after its owner last claimed it. When full, the least
// recently used task is forgotten.
type Memory struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	order *list.List // of *entry, most recently used first
	byKey map[key]*list.Element
}

type key struct{ agent, task string }

type entry struct {
	key     key
	owner   string
	expires time.Time
}

var _ Index = (*Memory)(nil)

// NewMemory returns an empty index of at most size tasks (at least one),
// each kept for ttl, on the clock now.
func NewMemory(size int, ttl time.Duration, now func() time.Time) *Memory {
	return &Memory{max: max(size, 1), ttl: ttl, now: now, order: list.New(), byKey: map[key]*list.Element{}}
}

// Claim implements Index.
func (m *Memory) Claim(_ context.Context, agent, owner string, tasks []string) ([]string, error) {
	now := m.now()
	out := make([]string, len(tasks))
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range tasks {
		k := key{agent, t}
		if e := m.live(k, now); e != nil {
			if e.owner == owner {
				e.expires = now.Add(m.ttl)
			}
			out[i] = e.owner
			continue
		}
		m.byKey[k] = m.order.PushFront(&entry{key: k, owner: owner, expires: now.Add(m.ttl)})
		for m.order.Len() > m.max {
			m.remove(m.order.Back())
		}
		out[i] = owner
	}
	return out, nil
}

// Owners implements Index.
func (m *Memory) Owners(_ context.Context, agent string, tasks []string) ([]string, error) {
	now := m.now()
	out := make([]string, len(tasks))
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range tasks {
		if e := m.live(key{agent, t}, now); e != nil {
			out[i] = e.owner
		}
	}
	return out, nil
}

// Len returns the number of tasks held, live or not yet pruned.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

// live returns k's unexpired entry, marked as most recently used, or nil;
// an expired entry is dropped.
func (m *Memory) live(k key, now time.Time) *entry {
	el, ok := m.byKey[k]
	if !ok {
		return nil
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		m.remove(el)
		return nil
	}
	m.order.MoveToFront(el)
	return e
}

func (m *Memory) remove(el *list.Element) {
	delete(m.byKey, el.Value.(*entry).key)
	m.order.Remove(el)
}
