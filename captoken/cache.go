package captoken

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// claimsCache is a bounded LRU cache of verified claims. It is keyed by the
// SHA-256 of the exact token string (which covers the capability id inside
// it), so a cache hit proves the very same bytes were verified before. It
// holds only successes; the caller re-checks audience and clock on every
// hit, and entries whose signing key left the key set are dropped.
type claimsCache struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]*list.Element
	lru     *list.List // front: most recently used; values are *cacheEntry
}

type cacheEntry struct {
	key    [sha256.Size]byte
	claims *Claims // never handed out: callers get clones
	kid    string
}

func newClaimsCache(max int) *claimsCache {
	return &claimsCache{max: max, entries: make(map[[sha256.Size]byte]*list.Element), lru: list.New()}
}

func (c *claimsCache) get(token string) (*cacheEntry, bool) {
	key := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry), true
}

func (c *claimsCache) put(token string, claims *Claims, kid string) {
	key := sha256.Sum256([]byte(token))
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, claims: claims, kid: kid})
	for c.lru.Len() > c.max {
		oldest := c.lru.Back()
		delete(c.entries, oldest.Value.(*cacheEntry).key)
		c.lru.Remove(oldest)
	}
}

func (c *claimsCache) forget(token string) { c.remove(sha256.Sum256([]byte(token))) }

func (c *claimsCache) remove(key [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		delete(c.entries, key)
		c.lru.Remove(el)
	}
}

func (c *claimsCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
