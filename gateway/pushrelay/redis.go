package pushrelay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/config"
)

// redisStore is the backend several replicas share: a config set through
// one replica is relayed by any other. A record lives under
// PREFIX push:{agent}:{id}, and the ids of a task's records in the set
// PREFIX pushtask:{agent}:{task}, both for ttl after the last write.
// Agent names contain no colon, so keys cannot collide. Each key is
// written and read on its own (pipelined, not in one transaction or one
// MGET), so the store works on a Cluster whatever slots the keys hash to.
// An owner's records are counted in the sorted set PREFIX
// pushowner:{owner} (see reserve), which a put claims a place in before
// it writes the record.
type redisStore struct {
	c        redis.UniversalClient
	prefix   string
	ttl      time.Duration
	timeout  time.Duration
	perOwner int
}

// NewRedis returns a Store on c, keys starting with prefix, records
// living for ttl after their last write, at most perOwner of them set by
// one principal (0 means config.DefaultPushConfigsPerPrincipal), every
// call bounded by timeout, sealed under key.
func NewRedis(c redis.UniversalClient, prefix string, ttl, timeout time.Duration, perOwner int, key []byte) (Store, error) {
	if perOwner <= 0 {
		perOwner = config.DefaultPushConfigsPerPrincipal
	}
	return newSealed(&redisStore{c: c, prefix: prefix, ttl: ttl, timeout: timeout, perOwner: perOwner}, key)
}

func (r *redisStore) key(agent, id string) string { return r.prefix + "push:" + agent + ":" + id }
func (r *redisStore) taskKey(agent, task string) string {
	return r.prefix + "pushtask:" + agent + ":" + task
}

func unavailable(err error) error { return fmt.Errorf("%w: %w", ErrUnavailable, err) }

func (r *redisStore) put(ctx context.Context, s slot, box []byte) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.reserve(ctx, s); err != nil {
		return err
	}
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.key(s.agent, s.id), box, r.ttl)
		if s.task != "" {
			p.SAdd(ctx, r.taskKey(s.agent, s.task), s.id)
			p.PExpire(ctx, r.taskKey(s.agent, s.task), r.ttl)
		}
		return nil
	})
	if err != nil {
		return unavailable(err)
	}
	return nil
}

func (r *redisStore) get(ctx context.Context, agent, id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	b, err := r.c.Get(ctx, r.key(agent, id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, ErrNotFound
	case err != nil:
		return nil, unavailable(err)
	}
	return b, nil
}

func (r *redisStore) byTask(ctx context.Context, agent, task string) (map[string][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	ids, err := r.c.SMembers(ctx, r.taskKey(agent, task)).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	_, err = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.Get(ctx, r.key(agent, id))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unavailable(err)
	}
	// Pipelined reports only the first failure: a record gone (redis.Nil)
	// may hide another that could not be read, which must not be skipped.
	for i, cmd := range cmds {
		b, err := cmd.Bytes()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, unavailable(err)
		default:
			out[ids[i]] = b
		}
	}
	return out, nil
}

func (r *redisStore) del(ctx context.Context, s slot) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, r.key(s.agent, s.id))
		if s.task != "" {
			p.SRem(ctx, r.taskKey(s.agent, s.task), s.id)
		}
		p.ZRem(ctx, r.ownerKey(s.owner), ownerMember(s))
		return nil
	})
	if err != nil {
		return unavailable(err)
	}
	return nil
}
