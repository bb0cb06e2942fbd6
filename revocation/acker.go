package revocation

import (
	"context"
	"log/slog"
	"slices"
	"sync/atomic"
)

// Acknowledgement queue: how many may wait to be published, and how many
// one pipelined call publishes at most.
const (
	ackQueue = 1024
	ackBatch = 64
)

// acker publishes this replica's acknowledgements from its own goroutine,
// so that a slow Redis holds up neither the subscription (whose PINGs
// keep the set fresh) nor the events behind the one acknowledged.
type acker struct {
	redis   *Redis
	replica string
	log     *slog.Logger
	queue   chan string
	done    chan struct{}
	dropped atomic.Uint64
}

// startAcker runs an acker until ctx is done.
func startAcker(ctx context.Context, r *Redis, replica string, log *slog.Logger) *acker {
	a := &acker{redis: r, replica: replica, log: log, queue: make(chan string, ackQueue), done: make(chan struct{})}
	go a.run(ctx)
	return a
}

// enqueue queues an acknowledgement of nonce, or drops it if the queue is
// full: the revoker then waits for its bound, which is safe.
func (a *acker) enqueue(nonce string) {
	select {
	case a.queue <- nonce:
	default:
		a.dropped.Add(1)
	}
}

// run publishes queued acknowledgements, in batches, until ctx ends.
func (a *acker) run(ctx context.Context) {
	defer close(a.done)
	batch := make([]string, 0, ackBatch)
	for {
		select {
		case <-ctx.Done():
			return
		case nonce := <-a.queue:
			batch = append(batch[:0], nonce)
		}
	drain:
		for len(batch) < ackBatch {
			select {
			case nonce := <-a.queue:
				batch = append(batch, nonce)
			default:
				break drain
			}
		}
		if err := a.redis.publishAcks(ctx, a.replica, batch); err != nil {
			a.log.Debug("revocation: acknowledgements not published; their revokers wait for the bound", "count", len(batch), "err", err)
		}
	}
}

// publishAcks publishes replica's acknowledgements of nonces in one
// pipelined call.
func (r *Redis) publishAcks(ctx context.Context, replica string, nonces []string) error {
	nonces = slices.Clone(nonces) // call's fn may outlive the call
	_, err := call(ctx, r, "ack", func(ctx context.Context) (struct{}, error) {
		pipe := r.client.Pipeline()
		for _, n := range nonces {
			pipe.Publish(ctx, r.keys.acks(), formatAck(n, replica))
		}
		_, err := pipe.Exec(ctx)
		return struct{}{}, err
	})
	return err
}
