package audit

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// StreamOption tunes a RedisStream.
type StreamOption func(*streamConfig)

type streamConfig struct {
	buffer, batch          int
	minBackoff, maxBackoff time.Duration
	log                    *slog.Logger
	onDrop                 func()
	onError                func(error)
}

// WithBuffer sets how many events may wait for Redis (DefaultStreamBuffer).
func WithBuffer(n int) StreamOption {
	return func(c *streamConfig) {
		if n > 0 {
			c.buffer = n
		}
	}
}

// WithBatch sets how many events one pipelined delivery carries at most
// (DefaultStreamBatch).
func WithBatch(n int) StreamOption {
	return func(c *streamConfig) {
		if n > 0 {
			c.batch = n
		}
	}
}

// WithRetryBackoff sets the wait between failed deliveries: min after the
// first failure, doubling up to max (50ms and 5s by default).
func WithRetryBackoff(minWait, maxWait time.Duration) StreamOption {
	return func(c *streamConfig) {
		if minWait > 0 && maxWait >= minWait {
			c.minBackoff, c.maxBackoff = minWait, maxWait
		}
	}
}

// WithLogger sets where delivery failures and drops are logged. It must
// not be backed by the audit handler feeding this stream.
func WithLogger(l *slog.Logger) StreamOption {
	return func(c *streamConfig) { c.log = l }
}

// WithOnDrop sets a hook called once per dropped event, for example a
// metrics counter. It must not block.
func WithOnDrop(f func()) StreamOption {
	return func(c *streamConfig) { c.onDrop = f }
}

// WithOnError sets a hook called once per failed delivery attempt, for
// example a Redis error counter. It must not block.
func WithOnError(f func(error)) StreamOption {
	return func(c *streamConfig) { c.onError = f }
}

// item is one stream entry to add: field "line" or "gap".
type item struct {
	field, value string
}

// gapMarker is the value of a gap entry.
type gapMarker struct {
	Chain string `json:"chain"`
	After uint64 `json:"after"`
	Next  uint64 `json:"next"`
}

// plan turns a batch into stream entries, with a gap entry before any
// event that does not follow the last one delivered for its chain. It
// returns the entries and the next expected seq per chain, to commit once
// the delivery succeeds.
func (s *RedisStream) plan(batch []Entry) ([]item, map[string]uint64) {
	next := map[string]uint64{}
	items := make([]item, 0, len(batch))
	for _, e := range batch {
		want, ok := next[e.Chain]
		if !ok {
			want, ok = s.next[e.Chain]
		}
		if !ok {
			want = 1
		}
		if e.Seq != want && e.Seq != 1 { // seq 1 starts a new segment
			g, _ := json.Marshal(gapMarker{Chain: e.Chain, After: want - 1, Next: e.Seq})
			items = append(items, item{StreamFieldGap, string(g)})
		}
		items = append(items, item{StreamFieldLine, string(e.Line)})
		next[e.Chain] = e.Seq + 1
	}
	return items, next
}

// deliver adds a batch to the stream, retrying with backoff while retry
// is true and the stream is not closing. A batch that cannot be delivered
// is dropped and counted. It reports whether the batch was delivered.
func (s *RedisStream) deliver(batch []Entry, retry bool) bool {
	items, next := s.plan(batch)
	wait := s.cfg.minBackoff
	for {
		err := s.xadd(items)
		if err == nil {
			for c, n := range next {
				s.next[c] = n
			}
			s.delivered.Add(uint64(len(batch)))
			if s.dropping.Swap(false) {
				s.cfg.log.Info("audit: stream delivering again", "stream", s.key, "dropped_total", s.dropped.Load())
			}
			return true
		}
		s.failures.Add(1)
		if s.cfg.onError != nil {
			s.cfg.onError(err)
		}
		s.cfg.log.Warn("audit: stream delivery failed", "stream", s.key, "events", len(batch), "err", err)
		if !retry {
			for _, e := range batch {
				s.drop(e, "redis unavailable at close")
			}
			return false
		}
		if !s.sleep(wait) {
			retry = false // closing: one last attempt
			continue
		}
		wait = min(2*wait, s.cfg.maxBackoff)
	}
}

// sleep waits d, or returns false at once if the stream is closing.
func (s *RedisStream) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closing:
		return false
	}
}

// xadd adds items in one pipeline, bounded by the stream's timeout.
func (s *RedisStream) xadd(items []item) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	pipe := s.client.Pipeline()
	for _, it := range items {
		pipe.XAdd(ctx, &redis.XAddArgs{
			Stream: s.key, MaxLen: s.maxLen, Approx: true,
			Values: []string{it.field, it.value},
		})
	}
	_, err := pipe.Exec(ctx)
	return err
}
