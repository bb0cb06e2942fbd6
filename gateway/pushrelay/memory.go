package pushrelay

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/capgate/capgate/gateway/config"
)

// ErrFull means the in-memory store holds as many records as it may.
var ErrFull = errors.New("pushrelay: too many relayed push configs")

// memory is the backend of one replica: bounded in all and per owner,
// each record living for a fixed time after it was last written.
type memory struct {
	mu       sync.Mutex
	max      int
	perOwner int
	ttl      time.Duration
	now      func() time.Time
	items    map[string]memItem
	tasks    map[string]map[string]bool
	// owned holds the keys of each owner's records.
	owned map[string]map[string]bool
}

type memItem struct {
	slot
	box     []byte
	expires time.Time
}

// NewMemory returns a Store for one replica holding at most max records,
// at most perOwner of them set by one principal (0 means
// config.DefaultPushConfigsPerPrincipal), each for ttl after it was last
// written, sealed under key.
func NewMemory(key []byte, max, perOwner int, ttl time.Duration, now func() time.Time) (Store, error) {
	if perOwner <= 0 {
		perOwner = config.DefaultPushConfigsPerPrincipal
	}
	return newSealed(&memory{max: max, perOwner: perOwner, ttl: ttl, now: now, items: map[string]memItem{},
		tasks: map[string]map[string]bool{}, owned: map[string]map[string]bool{}}, key)
}

func memKey(agent, id string) string { return agent + "\x00" + id }

// put stores a record. A new one (or one moving to another owner) takes a
// place under both bounds, which are checked again after forgetting what
// expired: in all, and among its owner's records only.
func (m *memory) put(_ context.Context, s slot, box []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memKey(s.agent, s.id)
	old, ok := m.items[k]
	if !ok || old.owner != s.owner {
		if err := m.room(s.owner); err != nil {
			return err
		}
	}
	if ok {
		m.forget(s.agent, s.id, "")
	}
	m.items[k] = memItem{slot: s, box: box, expires: m.now().Add(m.ttl)}
	if m.owned[s.owner] == nil {
		m.owned[s.owner] = map[string]bool{}
	}
	m.owned[s.owner][k] = true
	if s.task != "" {
		tk := memKey(s.agent, s.task)
		if m.tasks[tk] == nil {
			m.tasks[tk] = map[string]bool{}
		}
		m.tasks[tk][s.id] = true
	}
	return nil
}

// room reports whether one more record of owner fits. m.mu is held.
func (m *memory) room(owner string) error {
	if len(m.owned[owner]) >= m.perOwner {
		m.sweep(m.owned[owner])
		if len(m.owned[owner]) >= m.perOwner {
			return &PrincipalFullError{Owner: owner, Limit: m.perOwner}
		}
	}
	if len(m.items) >= m.max {
		m.sweep(nil)
		if len(m.items) >= m.max {
			return ErrFull
		}
	}
	return nil
}

// sweep forgets the expired records among keys, or among all records
// when keys is nil. m.mu is held.
func (m *memory) sweep(keys map[string]bool) {
	now := m.now()
	expired := func(k string) {
		if it, ok := m.items[k]; ok && now.After(it.expires) {
			m.forget(it.agent, it.id, "")
		}
	}
	if keys == nil {
		for k := range m.items {
			expired(k)
		}
		return
	}
	for k := range keys {
		expired(k)
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

func (m *memory) del(_ context.Context, s slot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(s.agent, s.id, s.task)
	return nil
}

// forget removes a record, its place among its owner's and its place in
// its task's set (and in task's, when that is another). m.mu is held.
func (m *memory) forget(agent, id, task string) {
	k := memKey(agent, id)
	if it, ok := m.items[k]; ok {
		delete(m.items, k)
		m.unlist(m.owned, it.owner, k)
		m.unlist(m.tasks, memKey(agent, it.task), id)
	}
	m.unlist(m.tasks, memKey(agent, task), id)
}

// unlist removes member from sets[key], and the set once it is empty.
func (m *memory) unlist(sets map[string]map[string]bool, key, member string) {
	if set := sets[key]; set != nil {
		delete(set, member)
		if len(set) == 0 {
			delete(sets, key)
		}
	}
}
