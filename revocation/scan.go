package revocation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Resync batch sizes: SCAN asks for scanCount keys per call, and entries are
// written back restoreBatch per pipeline.
const (
	scanCount    = 1000
	restoreBatch = 256
)

// scanPage is one SCAN reply.
type scanPage struct {
	keys []string
	next uint64
}

// scanInto adds every revocation held in Redis to dst, in bounded batches,
// on every master when the client is a Cluster.
func (r *Redis) scanInto(ctx context.Context, dst *set, nowMs int64) error {
	if cc, ok := r.client.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return r.scanNode(ctx, node, dst, nowMs)
		})
	}
	return r.scanNode(ctx, r.client, dst, nowMs)
}

// scanNode scans one node; each SCAN and each batch read is one call.
func (r *Redis) scanNode(ctx context.Context, c redis.Cmdable, dst *set, nowMs int64) error {
	match := r.keys.match()
	var cursor uint64
	for {
		cur := cursor
		page, err := call(ctx, r, "scan", func(ctx context.Context) (scanPage, error) {
			keys, next, err := c.Scan(ctx, cur, match, scanCount).Result()
			return scanPage{keys, next}, err
		})
		if err != nil {
			return err
		}
		if len(page.keys) > 0 {
			entries, err := call(ctx, r, "scan read", func(ctx context.Context) ([]entry, error) {
				return r.readEntries(ctx, c, page.keys, nowMs)
			})
			if err != nil {
				return err
			}
			for _, e := range entries {
				dst.add(e)
			}
		}
		if page.next == 0 {
			return nil
		}
		cursor = page.next
	}
}

// pendingRead is one scanned key and the commands reading it.
type pendingRead struct {
	e   entry
	ttl *redis.DurationCmd
	get *redis.StringCmd
}

// readEntries reads the TTL (and, for a principal, the cutoff) of every key
// in one pipeline. Keys that expired meanwhile are skipped, as are keys in
// the namespace that this package cannot have written (logged). An
// unparsable cutoff fails the whole read with ErrCorrupt.
func (r *Redis) readEntries(ctx context.Context, c redis.Cmdable, keys []string, nowMs int64) ([]entry, error) {
	pipe := c.Pipeline()
	reads := make([]pendingRead, 0, len(keys))
	for _, key := range keys {
		principal, name, err := r.keys.parseKey(key)
		if err != nil {
			r.log.Warn("revocation: ignoring foreign key in the revocation namespace", "err", err)
			continue
		}
		p := pendingRead{e: entry{principal: principal, name: name}, ttl: pipe.PTTL(ctx, key)}
		if principal {
			p.get = pipe.Get(ctx, key)
		}
		reads = append(reads, p)
	}
	if len(reads) == 0 {
		return nil, nil
	}
	_, _ = pipe.Exec(ctx) // every command's error is inspected below
	out := make([]entry, 0, len(reads))
	for _, p := range reads {
		e, ok, err := p.entry(nowMs)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// entry turns the replies of one pendingRead into an entry; ok is false for
// a key that expired between SCAN and the read.
func (p pendingRead) entry(nowMs int64) (entry, bool, error) {
	ttl, err := p.ttl.Result()
	if err != nil {
		return entry{}, false, err
	}
	e := p.e
	switch {
	case ttl == -2:
		return entry{}, false, nil
	case ttl == -1:
		e.untilMs = forever
	case ttl < 0:
		return entry{}, false, fmt.Errorf("%w: PTTL %v for %q", ErrCorrupt, ttl, e.name)
	default:
		e.untilMs = nowMs + ttl.Milliseconds()
	}
	if p.get == nil {
		return e, true, nil
	}
	v, err := p.get.Result()
	if errors.Is(err, redis.Nil) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, err
	}
	if e.beforeMs, err = parseMilli(v); err != nil {
		return entry{}, false, fmt.Errorf("cutoff of %q: %w", e.name, err)
	}
	return e, true, nil
}

// restore writes entries back to Redis (and publishes them), restoreBatch
// per pipelined call. It returns how many it wrote.
func (r *Redis) restore(ctx context.Context, entries []entry) (uint64, error) {
	var n uint64
	for len(entries) > 0 {
		batch := entries[:min(restoreBatch, len(entries))]
		entries = entries[len(batch):]
		_, err := call(ctx, r, "restore", func(ctx context.Context) (struct{}, error) {
			pipe := r.client.Pipeline()
			nowMs := r.now().UnixMilli()
			for _, e := range batch {
				if ttl := e.untilMs - nowMs; ttl > 0 {
					script, keys, args := r.scriptFor(e, min(ttl, maxTTL.Milliseconds()), true, "")
					script.Eval(ctx, pipe, keys, args...)
				}
			}
			_, err := pipe.Exec(ctx)
			return struct{}{}, err
		})
		if err != nil {
			return n, err
		}
		n += uint64(len(batch))
	}
	return n, nil
}

// resync rebuilds the local set from Redis as of start: it reads the epoch
// marker, scans every revocation, writes back those Redis lost, merges the
// rest in, and finally keeps or re-establishes the marker, provided it did
// not change meanwhile (else the resync fails and is repeated).
//
// The write-back comes first, as soon as the loss is seen: a replica that
// never saw the marker initialises an empty set after its InitGrace, and
// only what was written back before then reaches it by its SCAN or its
// subscription (see MinInitGrace).
func (s *Synced) resync(ctx context.Context, start time.Time) error {
	e, holdUntil, err := s.resyncEpoch(ctx)
	if err != nil {
		return fmt.Errorf("resync: %w", err)
	}
	fresh := newSet()
	if err := s.redis.scanInto(ctx, fresh, start.UnixMilli()); err != nil {
		return fmt.Errorf("resync: %w", err)
	}
	if missing := s.set.missingFrom(fresh, s.opts.Now().UnixMilli()); len(missing) > 0 {
		s.log.Warn("revocation: redis lacks revocations this replica holds; writing them back", "count", len(missing))
		n, err := s.redis.restore(ctx, missing)
		s.restored.Add(n)
		if err != nil {
			return fmt.Errorf("resync: restore: %w", err)
		}
	}
	if !holdUntil.IsZero() {
		s.log.Warn("revocation: written back; waiting max staleness before re-establishing the epoch marker", "wait", holdUntil.Sub(s.opts.Now()))
		if err := s.sleepUntil(ctx, holdUntil); err != nil {
			return fmt.Errorf("resync: %w", err)
		}
	}
	epoch, err := s.redis.establish(ctx, e.value)
	if err != nil {
		return fmt.Errorf("resync: %w", err)
	}
	s.set.merge(fresh, start.UnixMilli())
	s.epoch = epoch
	if s.lost.CompareAndSwap(true, false) {
		s.log.Warn("revocation: revocation set written back and epoch re-established", "epoch", epoch)
	}
	s.resyncs.Add(1)
	s.lastSync.Store(s.opts.Now().UnixNano())
	return nil
}

// resyncEpoch reads the epoch marker for a resync. A store that never saw
// one waits for it (initEpoch). A store that saw one and finds it gone is
// lost; it may create a new marker only once MaxStaleness has passed since
// it found the marker gone, so that no replica still trusting a set
// confirmed under the old marker (one that has not noticed the loss)
// remains when revokers start trusting the registry again (see the package
// doc): holdUntil is that moment, zero when there is nothing to wait for.
// The marker to establish is returned; "" means a new one.
func (s *Synced) resyncEpoch(ctx context.Context) (e epochRead, holdUntil time.Time, err error) {
	e, err = s.redis.readEpoch(ctx)
	if err != nil {
		return epochRead{}, time.Time{}, err
	}
	seen := s.opts.Now()
	switch {
	case !e.present && s.epoch == "":
		// Never synced: nothing to write back, so wait for a survivor.
		e.value, err = s.redis.initEpoch(ctx)
		return e, time.Time{}, err
	case s.epoch != "" && e.value != s.epoch:
		_ = s.redis.observe(e)
		s.markLost()
	}
	if e.present {
		return e, time.Time{}, nil
	}
	return e, seen.Add(s.opts.MaxStaleness), nil
}

// sleepUntil waits until the clock reads t, or until ctx is done.
func (s *Synced) sleepUntil(ctx context.Context, t time.Time) error {
	for {
		d := t.Sub(s.opts.Now())
		if d <= 0 {
			return nil
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}
