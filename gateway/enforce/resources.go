package enforce

import (
	"sync"

	"github.com/capgate/capgate/captoken"
)

// unsealCacheSize bounds the cache of opened resource maps.
const unsealCacheSize = 50_000

// Resource is one handle of a capability and the real resource id behind
// it.
type Resource struct{ Handle, ID string }

// ResourceMap is a capability's opened handle → resource-id map, in the
// order of its handles: a few pairs, kept in a slice rather than a map,
// whose handles are the verified claims' own strings.
type ResourceMap []Resource

// ID returns the resource id behind handle h.
func (m ResourceMap) ID(h string) (string, bool) {
	for _, p := range m {
		if p.Handle == h {
			return p.ID, true
		}
	}
	return "", false
}

// unsealCache keeps the opened handle → resource-id maps of verified
// capabilities, keyed by capability id, so the JWE is opened once per
// capability rather than once per call. It is only ever filled from claims
// that passed verification, whose sealed map is covered by the signature,
// so an entry can never belong to another token. Entries are evicted in
// insertion order.
type unsealCache struct {
	mu    sync.RWMutex
	m     map[string]ResourceMap
	order []string
	next  int
}

func newUnsealCache() *unsealCache {
	return &unsealCache{m: make(map[string]ResourceMap)}
}

// open returns c's resource map, from the cache or by unsealing it with v.
// The map is shared: callers only read it.
func (u *unsealCache) open(v *captoken.Verifier, c *captoken.Claims) (ResourceMap, error) {
	u.mu.RLock()
	m, ok := u.m[c.CapabilityID]
	u.mu.RUnlock()
	if ok {
		return m, nil
	}
	opened, err := v.Unseal(c)
	if err != nil {
		return nil, err
	}
	m = make(ResourceMap, 0, len(c.Handles))
	for _, h := range c.Handles {
		m = append(m, Resource{Handle: h, ID: opened[h]})
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.order) < unsealCacheSize {
		u.order = append(u.order, c.CapabilityID)
	} else {
		delete(u.m, u.order[u.next])
		u.order[u.next] = c.CapabilityID
		u.next = (u.next + 1) % unsealCacheSize
	}
	u.m[c.CapabilityID] = m
	return m, nil
}
