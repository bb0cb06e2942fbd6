package revocation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Persistence is what Redis says about its own persistence, from CONFIG
// GET appendonly and CONFIG GET save (on every master of a Cluster).
type Persistence struct {
	// Checked is false when Redis refused CONFIG (disabled, renamed or not
	// permitted to this user); the other fields are then meaningless.
	Checked bool
	// AOF reports appendonly yes on every node.
	AOF bool
	// RDB reports at least one save rule on every node.
	RDB bool
}

// None reports that Redis was checked and keeps nothing across a restart.
func (p Persistence) None() bool { return p.Checked && !p.AOF && !p.RDB }

// Persistence asks Redis how it persists its data.
func (r *Redis) Persistence(ctx context.Context) (Persistence, error) {
	if cc, ok := r.client.(*redis.ClusterClient); ok {
		all := Persistence{Checked: true, AOF: true, RDB: true}
		var mu sync.Mutex // ForEachMaster runs on every master at once
		err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			p, err := r.nodePersistence(ctx, node)
			mu.Lock()
			defer mu.Unlock()
			all.Checked, all.AOF, all.RDB = all.Checked && p.Checked, all.AOF && p.AOF, all.RDB && p.RDB
			return err
		})
		return all, err
	}
	return r.nodePersistence(ctx, r.client)
}

// nodePersistence asks one node. A refused CONFIG is an unchecked answer,
// not a failure.
func (r *Redis) nodePersistence(ctx context.Context, c redis.Cmdable) (Persistence, error) {
	return call(ctx, r, "config get", func(ctx context.Context) (Persistence, error) {
		aof, err := c.ConfigGet(ctx, "appendonly").Result()
		if err == nil {
			var save map[string]string
			if save, err = c.ConfigGet(ctx, "save").Result(); err == nil {
				return Persistence{
					Checked: true,
					AOF:     strings.EqualFold(aof["appendonly"], "yes"),
					RDB:     strings.TrimSpace(save["save"]) != "",
				}, nil
			}
		}
		var reply redis.Error
		if errors.As(err, &reply) && !errors.Is(err, redis.Nil) {
			return Persistence{}, nil
		}
		return Persistence{}, err
	})
}

// CheckPersistence checks Redis's persistence at start and logs what it
// found. A Redis with neither AOF nor RDB forgets every revocation when it
// restarts; if no running replica survives to write them back, they are
// gone. Such a Redis is refused with ErrNoPersistence unless allowNone,
// in which case the risk is logged as a warning. A Redis that refuses
// CONFIG cannot be checked: that is logged and accepted.
func (r *Redis) CheckPersistence(ctx context.Context, allowNone bool) error {
	p, err := r.Persistence(ctx)
	if err != nil {
		return err
	}
	if p.None() && !allowNone {
		return fmt.Errorf("%w: appendonly is no and save is empty; a restart forgets every revocation (enable appendonly, or allow it explicitly)", ErrNoPersistence)
	}
	r.describePersistence(ctx, p, "at start")
	return nil
}

// logPersistence checks persistence and logs it; errors are logged.
func (r *Redis) logPersistence(ctx context.Context, when string) {
	p, err := r.Persistence(ctx)
	if err != nil {
		r.log.Warn("revocation: could not check redis persistence", "when", when, "err", err)
		return
	}
	r.describePersistence(ctx, p, when)
}

// describePersistence logs p, loudly when revocations are at risk.
func (r *Redis) describePersistence(ctx context.Context, p Persistence, when string) {
	switch {
	case !p.Checked:
		r.log.WarnContext(ctx, "revocation: redis persistence could not be checked (CONFIG refused); make sure it runs with appendonly yes", "when", when)
	case p.None():
		r.log.WarnContext(ctx, "revocation: REDIS HAS NO PERSISTENCE: a restart forgets every revocation, and only running replicas can write them back", "when", when)
	case !p.AOF:
		r.log.WarnContext(ctx, "revocation: redis persists by snapshot only: a restart rolls back to the last snapshot, losing later revocations unless a running replica writes them back; use appendonly yes", "when", when)
	default:
		r.log.InfoContext(ctx, "revocation: redis persists with appendonly", "when", when)
	}
}
