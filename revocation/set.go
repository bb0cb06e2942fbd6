package revocation

import (
	"hash/maphash"
	"sync"
	"time"
)

// shardCount spreads the set over independently locked maps, so a writer
// or the janitor holds up only 1/shardCount of the readers.
const shardCount = 64

// cutoff is a principal revocation: tokens issued before beforeMs are
// revoked until untilMs (both unix milliseconds).
type cutoff struct {
	beforeMs, untilMs int64
}

// entry is one revocation, as listed by set.missingFrom.
type entry struct {
	principal bool
	name      string
	cutoff
}

// shard is one lock's worth of the set.
type shard struct {
	mu         sync.RWMutex
	ids        map[string]int64 // revocation id -> until (unix ms)
	principals map[string]cutoff
	_          [40]byte // keep neighbouring locks off one cache line
}

// set is the in-memory revocation set shared by Memory and Synced. Every
// operation is extend-only; entries leave only by pruning after they expire.
// Lookups take a read lock on one shard and do not allocate.
type set struct {
	seed   maphash.Seed
	shards [shardCount]shard
}

func newSet() *set {
	s := &set{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].ids = make(map[string]int64)
		s.shards[i].principals = make(map[string]cutoff)
	}
	return s
}

func (s *set) shard(key string) *shard {
	return &s.shards[maphash.String(s.seed, key)%shardCount]
}

// addID records id until untilMs, never shortening an existing entry.
func (s *set) addID(id string, untilMs int64) {
	sh := s.shard(id)
	sh.mu.Lock()
	if cur, ok := sh.ids[id]; !ok || cur < untilMs {
		sh.ids[id] = untilMs
	}
	sh.mu.Unlock()
}

// addPrincipal merges c into principal's cutoff: the later before and the
// later until win.
func (s *set) addPrincipal(principal string, c cutoff) {
	sh := s.shard(principal)
	sh.mu.Lock()
	if cur, ok := sh.principals[principal]; ok {
		c.beforeMs = max(c.beforeMs, cur.beforeMs)
		c.untilMs = max(c.untilMs, cur.untilMs)
	}
	sh.principals[principal] = c
	sh.mu.Unlock()
}

// add records e.
func (s *set) add(e entry) {
	if e.principal {
		s.addPrincipal(e.name, e.cutoff)
		return
	}
	s.addID(e.name, e.untilMs)
}

// check answers q at nowMs. q must be valid. It never allocates unless a
// principal cutoff matches.
func (s *set) check(q Query, now time.Time) Result {
	nowMs := now.UnixMilli()
	for _, id := range q.IDs {
		sh := s.shard(id)
		sh.mu.RLock()
		until, ok := sh.ids[id]
		sh.mu.RUnlock()
		if ok && nowMs < until {
			return Result{Revoked: true, By: id}
		}
	}
	if q.Principal == "" {
		return Result{}
	}
	sh := s.shard(q.Principal)
	sh.mu.RLock()
	c, ok := sh.principals[q.Principal]
	sh.mu.RUnlock()
	if ok && nowMs < c.untilMs && issuedMilli(q.IssuedAt) < c.beforeMs {
		return Result{Revoked: true, By: PrincipalPrefix + q.Principal}
	}
	return Result{}
}

// prune drops every entry expired at nowMs and returns how many it dropped.
func (s *set) prune(nowMs int64) int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for id, until := range sh.ids {
			if until <= nowMs {
				delete(sh.ids, id)
				n++
			}
		}
		for p, c := range sh.principals {
			if c.untilMs <= nowMs {
				delete(sh.principals, p)
				n++
			}
		}
		sh.mu.Unlock()
	}
	return n
}

// len returns the number of entries, expired ones not yet pruned included.
func (s *set) len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		n += len(sh.ids) + len(sh.principals)
		sh.mu.RUnlock()
	}
	return n
}

// each calls fn for every entry still live at nowMs, one shard at a time
// under its read lock; fn must not touch s.
func (s *set) each(nowMs int64, fn func(entry)) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for id, until := range sh.ids {
			if nowMs < until {
				fn(entry{name: id, cutoff: cutoff{untilMs: until}})
			}
		}
		for p, c := range sh.principals {
			if nowMs < c.untilMs {
				fn(entry{principal: true, name: p, cutoff: c})
			}
		}
		sh.mu.RUnlock()
	}
}

// covers reports whether s holds e: the id at all, or the principal with
// a cutoff at least as late. Expiry times are not compared: one read back
// from a TTL is a few milliseconds short of the one written.
func (s *set) covers(e entry) bool {
	sh := s.shard(e.name)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	if e.principal {
		c, ok := sh.principals[e.name]
		return ok && c.beforeMs >= e.beforeMs
	}
	_, ok := sh.ids[e.name]
	return ok
}

// missingFrom lists the live entries of s that other lacks, or whose
// cutoff other holds earlier: what a store that lost data must be told
// again.
func (s *set) missingFrom(other *set, nowMs int64) []entry {
	var out []entry
	s.each(nowMs, func(e entry) {
		if !other.covers(e) {
			out = append(out, e)
		}
	})
	return out
}

// merge adds every live entry of other to s.
func (s *set) merge(other *set, nowMs int64) {
	other.each(nowMs, s.add)
}

// janitor prunes a set every interval until stopped.
type janitor struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func startJanitor(s *set, every time.Duration, now func() time.Time) *janitor {
	j := &janitor{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(j.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-j.stop:
				return
			case <-t.C:
				s.prune(now().UnixMilli())
			}
		}
	}()
	return j
}

// close stops the janitor and waits for it; it is idempotent.
func (j *janitor) close() {
	j.once.Do(func() { close(j.stop) })
	<-j.done
}
