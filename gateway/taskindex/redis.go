package taskindex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the index shared by several replicas: a task started through
// any replica can be followed up through any other. It works on a single
// node, Sentinel or Cluster through go-redis's UniversalClient.
//
// A binding lives under PREFIX task:{agent}:{task id}, holding the owner,
// for ttl after its owner last claimed it. Agent names contain no colon, so
// keys cannot collide.
type Redis struct {
	c       redis.UniversalClient
	prefix  string
	ttl     time.Duration
	timeout time.Duration
}

var _ Index = (*Redis)(nil)

// claimScript binds KEYS[1] to ARGV[1] for ARGV[2] milliseconds unless it
// is bound already, refreshes the binding when it is ARGV[1]'s, and
// returns the owner it is bound to.
var claimScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return cur
`)

// NewRedis returns an index on c. Keys start with prefix; bindings live
// for ttl; every call is bounded by timeout.
func NewRedis(c redis.UniversalClient, prefix string, ttl, timeout time.Duration) *Redis {
	return &Redis{c: c, prefix: prefix, ttl: ttl, timeout: timeout}
}

func (r *Redis) key(agent, task string) string { return r.prefix + "task:" + agent + ":" + task }

// Claim implements Index.
func (r *Redis) Claim(ctx context.Context, agent, owner string, tasks []string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	out := make([]string, len(tasks))
	for i, t := range tasks {
		got, err := claimScript.Run(ctx, r.c, []string{r.key(agent, t)}, owner, r.ttl.Milliseconds()).Text()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		out[i] = got
	}
	return out, nil
}

// Owners implements Index.
func (r *Redis) Owners(ctx context.Context, agent string, tasks []string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmds := make([]*redis.StringCmd, len(tasks))
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, t := range tasks {
			cmds[i] = p.Get(ctx, r.key(agent, t))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	out := make([]string, len(tasks))
	for i, cmd := range cmds {
		v, err := cmd.Result()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		default:
			out[i] = v
		}
	}
	return out, nil
}
