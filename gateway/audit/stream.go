package audit

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Entry is one written event as a StreamSink receives it.
type Entry struct {
	// Chain and Seq identify the event.
	Chain string
	Seq   uint64
	// Line is the event's canonical line without the newline. The sink
	// owns it.
	Line []byte
}

// StreamSink receives every event after the handler wrote it, in chain
// order. Enqueue is called with the chain lock held: it must not block.
type StreamSink interface {
	Enqueue(Entry)
}

// Stream entry fields. An event entry has one field, "line", holding the
// event's canonical line. A gap entry has one field, "gap", holding
// {"chain":…,"after":N,"next":M}: the sink dropped the chain's events
// after seq N and before seq M.
const (
	StreamFieldLine = "line"
	StreamFieldGap  = "gap"
)

// Stream defaults.
const (
	DefaultStreamMaxLen = 100_000
	DefaultStreamBuffer = 4096
	DefaultStreamBatch  = 128
)

// StreamStats counts what a RedisStream did.
type StreamStats struct {
	// Delivered counts events added to the stream.
	Delivered uint64
	// Dropped counts events that never reached the stream: the buffer was
	// full, or the stream was closing and Redis did not answer.
	Dropped uint64
	// Failures counts failed deliveries (each retried, or dropped at Close).
	Failures uint64
}

// RedisStream is a StreamSink that XADDs every event to a Redis stream, so
// the trail outlives the replica that wrote it. Enqueue never blocks:
// events wait in a bounded buffer for one background writer, which
// retries with backoff while Redis is unreachable and keeps chain order.
// When the buffer is full the event is dropped, counted, reported to the
// OnDrop hook and logged (once per run of drops), and the next delivered
// event is preceded by a gap entry so the loss is visible in the stream.
// The audit writer still has every event.
type RedisStream struct {
	client  redis.UniversalClient
	key     string
	maxLen  int64
	timeout time.Duration
	cfg     streamConfig

	mu     sync.RWMutex // guards closed against Enqueue
	closed bool
	ch     chan Entry

	closing   chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	delivered, dropped, failures atomic.Uint64
	dropping                     atomic.Bool
	next                         map[string]uint64 // writer goroutine only
}

var _ StreamSink = (*RedisStream)(nil)

// NewRedisStream starts a sink adding events to the stream at key, trimmed
// with MAXLEN ~ maxLen (DefaultStreamMaxLen when maxLen <= 0), each
// delivery bounded by timeout (honoured by go-redis when the client has
// ContextTimeoutEnabled; its read and write timeouts bound it otherwise).
// Call Close to flush and stop it.
func NewRedisStream(client redis.UniversalClient, key string, maxLen int64, timeout time.Duration, opts ...StreamOption) *RedisStream {
	cfg := streamConfig{buffer: DefaultStreamBuffer, batch: DefaultStreamBatch,
		minBackoff: 50 * time.Millisecond, maxBackoff: 5 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	if maxLen <= 0 {
		maxLen = DefaultStreamMaxLen
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	s := &RedisStream{client: client, key: key, maxLen: maxLen, timeout: timeout, cfg: cfg,
		ch: make(chan Entry, cfg.buffer), closing: make(chan struct{}), done: make(chan struct{}),
		next: map[string]uint64{}}
	go s.run()
	return s
}

// Enqueue hands one event to the background writer without blocking; a
// full buffer or a closed stream drops it (counted and logged).
func (s *RedisStream) Enqueue(e Entry) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.drop(e, "stream closed")
		return
	}
	select {
	case s.ch <- e:
	default:
		s.drop(e, "buffer full")
	}
}

// Stats returns the counters.
func (s *RedisStream) Stats() StreamStats {
	return StreamStats{Delivered: s.delivered.Load(), Dropped: s.dropped.Load(), Failures: s.failures.Load()}
}

// Dropped returns how many events never reached the stream.
func (s *RedisStream) Dropped() uint64 { return s.dropped.Load() }

// Close stops accepting events, delivers what is buffered while Redis
// answers (one attempt per batch, stopping at the first failure), counts
// the rest as dropped and waits for the writer. It does
// not close the client. It is idempotent.
func (s *RedisStream) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.closing)
	})
	<-s.done
	return nil
}

// drop counts one lost event and logs the first of a run of drops.
func (s *RedisStream) drop(e Entry, why string) {
	n := s.dropped.Add(1)
	if s.cfg.onDrop != nil {
		s.cfg.onDrop()
	}
	if !s.dropping.Swap(true) {
		s.cfg.log.Error("audit: stream dropping events; the audit writer still has them",
			"stream", s.key, "chain", e.Chain, "seq", e.Seq, "reason", why, "dropped_total", n)
	}
}

// run is the background writer.
func (s *RedisStream) run() {
	defer close(s.done)
	for {
		select {
		case e := <-s.ch:
			s.deliver(s.collect(e), true)
		case <-s.closing:
			s.flush()
			return
		}
	}
}

// collect gathers e and whatever else is buffered, up to one batch.
func (s *RedisStream) collect(e Entry) []Entry {
	batch := []Entry{e}
	for len(batch) < s.cfg.batch {
		select {
		case e := <-s.ch:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// flush delivers what is buffered with one attempt per batch; after a
// failed attempt it drops the rest without trying, so that Close is not
// held up by a Redis that is down.
func (s *RedisStream) flush() {
	ok := true
	for {
		select {
		case e := <-s.ch:
			if ok {
				ok = s.deliver(s.collect(e), false)
			} else {
				s.drop(e, "redis unavailable at close")
			}
		default:
			return
		}
	}
}
