package a2afront

import (
	"sync"

	"github.com/capgate/capgate/captoken"
)

// unsealCacheSize bounds the cache of opened resource maps.
const unsealCacheSize = 50_000

// unsealCache keeps the opened handle → resource-id maps of verified
// capabilities, keyed by capability id, so the JWE is opened once per
// capability rather than once per call. It is only ever filled from claims
// that passed verification, whose sealed map is covered by the signature,
// so an entry can never belong to another token. Entries are evicted in
// insertion order.
type unsealCache struct {
	mu    sync.RWMutex
	m     map[string]map[string]string
	order []string
	next  int
}

func newUnsealCache() *unsealCache {
	return &unsealCache{m: make(map[string]map[string]string)}
}

// open returns c's resource map, from the cache or by unsealing it with v.
func (u *unsealCache) open(v *captoken.Verifier, c *captoken.Claims) (map[string]string, error) {
	u.mu.RLock()
	m, ok := u.m[c.CapabilityID]
	u.mu.RUnlock()
	if ok {
		return m, nil
	}
	m, err := v.Unseal(c)
	if err != nil {
		return nil, err
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
