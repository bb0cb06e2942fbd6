package captoken

import (
	"crypto/sha256"
	"sync"
)

// cacheKey is the SHA-256 of a token's exact compact string.
type cacheKey = [sha256.Size]byte

// claimsCache is a bounded LRU cache of verified claims. It is keyed by the
// SHA-256 of the exact token string (which covers the capability id inside
// it), so a cache hit proves the very same bytes were verified before. It
// holds only successes; the caller re-checks audience and clock on every
// hit, and entries whose signing key left the key set are dropped.
//
// The claims are kept compact (compactClaims): spans of the packed token
// they were verified from, when the caller holds that, so that a token
// kept by the capability index is not kept a second time here.
type claimsCache struct {
	mu      sync.Mutex
	max     int
	entries map[cacheKey]*cacheEntry
	lru     cacheEntry // sentinel: lru.next is the most recently used
	// bufs holds the buffers tokens are copied into to be hashed:
	// sha256 takes bytes, and converting a token of a kilobyte to bytes
	// would allocate that kilobyte on every lookup.
	bufs sync.Pool
}

type cacheEntry struct {
	key        cacheKey
	kid        string
	prev, next *cacheEntry
	claims     compactClaims // immutable: read without the lock
}

func newClaimsCache(max int) *claimsCache {
	c := &claimsCache{max: max, entries: make(map[cacheKey]*cacheEntry)}
	c.lru.prev, c.lru.next = &c.lru, &c.lru
	return c
}

// key is the cache key of token: its SHA-256.
func (c *claimsCache) key(token string) cacheKey {
	return c.hash(func(b []byte) []byte { return append(b, token...) })
}

// packedKey is the cache key of p's compact token, which it hashes
// without building the string.
func (c *claimsCache) packedKey(p Packed) cacheKey {
	return c.hash(p.AppendCompact)
}

// hash returns the SHA-256 of what write appends to a pooled buffer.
func (c *claimsCache) hash(write func([]byte) []byte) cacheKey {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = write((*bp)[:0])
	key := sha256.Sum256(*bp)
	if cap(*bp) <= maxPooledToken {
		c.bufs.Put(bp)
	}
	return key
}

// maxPooledToken is the largest buffer kept for hashing tokens.
const maxPooledToken = 16 << 10

func (c *claimsCache) get(key cacheKey) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e, true
}

func (c *claimsCache) put(key cacheKey, claims compactClaims, kid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.unlink(e)
		c.pushFront(e)
		return
	}
	e := &cacheEntry{key: key, kid: kid, claims: claims}
	c.entries[key] = e
	c.pushFront(e)
	for len(c.entries) > c.max {
		oldest := c.lru.prev
		delete(c.entries, oldest.key)
		c.unlink(oldest)
	}
}

func (c *claimsCache) remove(key cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		delete(c.entries, key)
		c.unlink(e)
	}
}

func (c *claimsCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *claimsCache) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *claimsCache) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}
