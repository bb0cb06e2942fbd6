package ratelimit

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// errFull: the in-memory limiter holds MaxKeys busy keys.
var errFull = errors.New("in-memory limiter full")

// memoryStore keeps buckets and live sets for a single replica, at most
// maxKeys of each. A full bucket or an empty live set is the same as no
// state at all, so those are dropped first when room is needed.
type memoryStore struct {
	mu      sync.Mutex
	maxKeys int
	buckets map[string]*rate.Limiter
	live    map[string][]time.Time // sorted expiries
}

func newMemoryStore(maxKeys int) *memoryStore {
	return &memoryStore{maxKeys: maxKeys, buckets: map[string]*rate.Limiter{}, live: map[string][]time.Time{}}
}

func (m *memoryStore) allow(_ context.Context, key string, r Rate, n int, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.buckets[key]
	if !ok {
		if len(m.buckets) >= m.maxKeys && !m.sweepBuckets(now) {
			return 0, errFull
		}
		b = rate.NewLimiter(rate.Limit(float64(r.Events)/r.Period.Seconds()), r.Burst)
		m.buckets[key] = b
	}
	res := b.ReserveN(now, n)
	if !res.OK() {
		return r.Period, nil
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, nil
	}
	return 0, nil
}

// sweepBuckets drops the full buckets; it reports whether there is room.
func (m *memoryStore) sweepBuckets(now time.Time) bool {
	for k, b := range m.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(m.buckets, k)
		}
	}
	return len(m.buckets) < m.maxKeys
}

func (m *memoryStore) admitLive(_ context.Context, key string, maxLive int, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	exp := m.trim(key, now)
	if len(exp) < maxLive {
		return 0, nil
	}
	return exp[len(exp)-maxLive].Sub(now), nil
}

func (m *memoryStore) recordLive(_ context.Context, key, _ string, expires, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	exp := m.trim(key, now)
	if exp == nil && len(m.live) >= m.maxKeys {
		for k := range m.live {
			m.trim(k, now)
		}
		if len(m.live) >= m.maxKeys {
			return errFull
		}
	}
	i, _ := slices.BinarySearchFunc(exp, expires, time.Time.Compare)
	m.live[key] = slices.Insert(exp, i, expires)
	return nil
}

// trim drops the expired entries of key's live set and returns the rest.
func (m *memoryStore) trim(key string, now time.Time) []time.Time {
	exp := m.live[key]
	i := 0
	for i < len(exp) && !exp[i].After(now) {
		i++
	}
	exp = exp[i:]
	if len(exp) == 0 {
		delete(m.live, key)
		return nil
	}
	m.live[key] = exp
	return exp
}
