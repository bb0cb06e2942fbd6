package a2efront

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// popBatch bounds one LPOP of a mailbox.
const popBatch = 64

// Subscribe implements SessionStore: it subscribes to the session's
// channel, then drains the mailbox at once, on every wake-up and every
// PollInterval.
func (r *RedisStore) Subscribe(ctx context.Context, id string) (Subscription, error) {
	if !validSessionID(id) {
		return nil, ErrSessionNotFound
	}
	ps := r.client.Subscribe(context.WithoutCancel(ctx), r.channel(id))
	if _, err := redisCall(ctx, r, "subscribe", func(ctx context.Context) (any, error) { return ps.Receive(ctx) }); err != nil {
		_ = ps.Close()
		return nil, err
	}
	sub := newChanSub(ctx)
	go func() {
		defer sub.finish()
		defer ps.Close()
		wake := ps.Channel()
		tick := time.NewTicker(r.opts.PollInterval)
		defer tick.Stop()
		for {
			if !r.drain(sub, id) {
				return
			}
			select {
			case _, ok := <-wake:
				if !ok {
					return
				}
			case <-tick.C:
			case <-sub.ctx.Done():
				return
			}
		}
	}()
	return sub, nil
}

// drain delivers every queued message; false when the subscription ended.
func (r *RedisStore) drain(sub *chanSub, id string) bool {
	for {
		msgs, err := redisCall(sub.ctx, r, "pop", func(ctx context.Context) ([]string, error) {
			m, err := r.client.LPopCount(ctx, r.mboxKey(id), popBatch).Result()
			if errors.Is(err, redis.Nil) {
				return nil, nil
			}
			return m, err
		})
		if err != nil {
			if sub.ctx.Err() != nil {
				return false
			}
			r.opts.Logger.Warn("a2efront: reading a session mailbox", "error", err)
			return true
		}
		for i, m := range msgs {
			if !sub.deliver([]byte(m)) {
				r.requeue(id, msgs[i:])
				return false
			}
		}
		if len(msgs) < popBatch {
			return true
		}
	}
}

// requeue puts undelivered messages back at the head of the mailbox, best
// effort.
func (r *RedisStore) requeue(id string, msgs []string) {
	rev := slices.Clone(msgs)
	slices.Reverse(rev)
	args := make([]any, len(rev))
	for i, m := range rev {
		args[i] = m
	}
	if _, err := redisCall(context.Background(), r, "requeue", func(ctx context.Context) (int64, error) {
		return r.client.LPush(ctx, r.mboxKey(id), args...).Result()
	}); err != nil {
		r.opts.Logger.Warn("a2efront: requeueing gateway messages", "error", err)
	}
}
