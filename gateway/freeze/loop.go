package freeze

import (
	"context"
	"maps"
	"slices"
	"time"
)

// interval is how often a replica merges with the shared copy.
func (s *Set) interval() time.Duration {
	return max(s.opts.MaxStaleness/4, 50*time.Millisecond)
}

// loop applies published changes as they come and merges with the shared
// copy every interval, until ctx ends.
func (s *Set) loop(ctx context.Context) {
	defer close(s.done)
	sub := s.redis.client.Subscribe(ctx, s.redis.channel)
	defer sub.Close()
	msgs := sub.Channel()
	tick := time.NewTicker(s.interval())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				msgs = nil
				continue
			}
			if e, err := decode(m.Payload); err == nil {
				s.apply(e)
			} else {
				s.opts.Logger.WarnContext(ctx, "freeze: a garbled change on the channel; ignored, the next merge reads the hash", "error", err)
			}
		case <-tick.C:
			if err := s.merge(ctx); err != nil && ctx.Err() == nil {
				s.opts.Logger.WarnContext(ctx, "freeze: merging with the shared set failed", "error", err)
			}
		}
	}
}

// merge reads the shared copy, keeps per name the newer change, and
// writes back every change this replica holds that the shared copy lacks
// or holds older (all of them, after Redis lost its data). Only when all
// of that succeeded is the copy trusted from the moment the read was
// sent.
func (s *Set) merge(ctx context.Context) error {
	sent := s.opts.Now()
	remote, bad, err := s.redis.readAll(ctx)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		s.opts.Logger.ErrorContext(ctx, "freeze: entries of the shared set do not read; they are rewritten if this replica holds them",
			"fields", slices.Sorted(maps.Keys(bad)))
	}
	s.mu.Lock()
	seen := table{}
	for _, e := range remote {
		seen[e.key()] = e
		s.t.merge(e)
	}
	s.report()
	var back []Entry
	for k, e := range s.t {
		if r, ok := seen[k]; !ok || e.newer(r) {
			back = append(back, e)
		}
	}
	s.mu.Unlock()
	for _, e := range back {
		if err := s.redis.write(ctx, e, bad[e.key()]); err != nil {
			return err
		}
	}
	if len(back) > 0 {
		s.opts.Logger.InfoContext(ctx, "freeze: wrote back changes the shared set lacked", "count", len(back))
	}
	s.mu.Lock()
	if sent.After(s.trusted) {
		s.trusted = sent
	}
	s.mu.Unlock()
	return nil
}
