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
	// bufs holds the buffers tokens are copied into to be hashed:
	// sha256 takes bytes, and converting a token of a kilobyte to bytes
	// would allocate that kilobyte on every lookup.
	bufs sync.Pool
}

type cacheEntry struct {
	key    [sha256.Size]byte
	claims *Claims // never handed out: callers get clones
	kid    string
}

func newClaimsCache(max int) *claimsCache {
	return &claimsCache{max: max, entries: make(map[[sha256.Size]byte]*list.Element), lru: list.New()}
}

// key is the cache key of token: its SHA-256.
func (c *claimsCache) key(token string) [sha256.Size]byte {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = append((*bp)[:0], token...)
	key := sha256.Sum256(*bp)
	if cap(*bp) <= maxPooledToken {
		c.bufs.Put(bp)
	}
	return key
}

// maxPooledToken is the largest buffer kept for hashing tokens.
const maxPooledToken = 16 << 10

func (c *claimsCache) get(token string) (*cacheEntry, bool) {
	key := c.key(token)
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
	key := c.key(token)
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

func (c *claimsCache) forget(token string) { c.remove(c.key(token)) }

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
