package pushrelay

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrFull means the in-memory store holds as many records as it may.
var ErrFull = errors.New("pushrelay: too many relayed push configs")

// memory is the backend of one replica: bounded, each record living for
// a fixed time after it was last written.
type memory struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	items map[string]memItem
	tasks map[string]map[string]bool
}

type memItem struct {
	box             []byte
	agent, id, task string
	expires         time.Time
}

// NewMemory returns a Store for one replica holding at most max records,
// each for ttl after it was last written, sealed under key.
func NewMemory(key []byte, max int, ttl time.Duration, now func() time.Time) (Store, error) {
	return newSealed(&memory{max: max, ttl: ttl, now: now, items: map[string]memItem{}, tasks: map[string]map[string]bool{}}, key)
}

func memKey(agent, id string) string { return agent + "\x00" + id }

func (m *memory) put(_ context.Context, agent, id, task string, box []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memKey(agent, id)
	if _, ok := m.items[k]; !ok && len(m.items) >= m.max {
		m.sweep()
		if len(m.items) >= m.max {
			return ErrFull
		}
	}
	m.items[k] = memItem{box: box, agent: agent, id: id, task: task, expires: m.now().Add(m.ttl)}
	if task != "" {
		tk := memKey(agent, task)
		if m.tasks[tk] == nil {
			m.tasks[tk] = map[string]bool{}
		}
		m.tasks[tk][id] = true
	}
	return nil
}

// sweep forgets expired records. m.mu is held.
func (m *memory) sweep() {
	now := m.now()
	for _, it := range m.items {
		if now.After(it.expires) {
			m.forget(it.agent, it.id, it.task)
		}
	}
}

func (m *memory) get(_ context.Context, agent, id string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[memKey(agent, id)]
	if !ok || m.now().After(it.expires) {
		return nil, ErrNotFound
	}
	return it.box, nil
}

func (m *memory) byTask(_ context.Context, agent, task string) (map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]byte{}
	for id := range m.tasks[memKey(agent, task)] {
		if it, ok := m.items[memKey(agent, id)]; ok && !m.now().After(it.expires) {
			out[id] = it.box
		}
	}
	return out, nil
}

func (m *memory) del(_ context.Context, agent, id, task string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(agent, id, task)
	return nil
}

// forget removes a record and its place in its task's set. m.mu is held.
func (m *memory) forget(agent, id, task string) {
	delete(m.items, memKey(agent, id))
	if ids := m.tasks[memKey(agent, task)]; ids != nil {
		delete(ids, id)
		if len(ids) == 0 {
			delete(m.tasks, memKey(agent, task))
		}
	}
}
