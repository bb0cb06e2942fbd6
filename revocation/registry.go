package revocation

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// The replica registry.
//
// A revoker must know every replica that may still answer from memory
// when it returns, so that it can wait for each one's acknowledgement:
// PUBLISH's count is not enough, since a replica whose subscription has
// just dropped is not counted but still trusts its set until its
// freshness runs out, and on Cluster the count covers only the node that
// ran the script.
//
// Each Synced replica therefore holds a lease in one hash: its id mapped
// to a deadline on the Redis clock, registryLease after the registration
// ran. It registers at the end of every resync and renews after every
// answered PING, and it only ever trusts its set until localLease after
// it sent the registration that preceded the PING (see Synced.markFresh):
// localLease is shorter than registryLease, so a replica that may be
// fresh is always in the registry, whatever the round trips took. A
// closed replica removes itself; a crashed one drops out when its lease
// ends.

// Lease lengths, in units of MaxStaleness.
const (
	// localLeaseFactor bounds the trust a replica puts in a registration.
	localLeaseFactor = 2
	// registryLeaseFactor is the lease written into Redis; the margin over
	// localLeaseFactor absorbs the millisecond rounding of TIME and any
	// difference in clock rates.
	registryLeaseFactor = 3
)

// register records replica's lease in the registry.
func (r *Redis) register(ctx context.Context, replica string, lease time.Duration) error {
	_, err := call(ctx, r, "register", func(ctx context.Context) (struct{}, error) {
		err := registerScript.Run(ctx, r.client, []string{r.keys.registry()}, replica, lease.Milliseconds()).Err()
		return struct{}{}, err
	})
	return err
}

// renewal is what confirm reads: the epoch marker, and whether the lease
// was renewed.
type renewal struct {
	epoch  epochRead
	leased bool
}

// confirm reads the epoch marker and renews replica's lease in one round
// trip. Only a failed read of the marker is an error.
func (r *Redis) confirm(ctx context.Context, replica string, lease time.Duration) (renewal, error) {
	return call(ctx, r, "epoch", func(ctx context.Context) (renewal, error) {
		pipe := r.client.Pipeline()
		get := pipe.Get(ctx, r.keys.epoch())
		reg := registerScript.Eval(ctx, pipe, []string{r.keys.registry()}, replica, lease.Milliseconds())
		_, _ = pipe.Exec(ctx) // each command's error is inspected below
		e, err := epochFromCmd(get)
		if err != nil {
			return renewal{}, err
		}
		return renewal{epoch: e, leased: reg.Err() == nil}, nil
	})
}

// liveReplicas lists the replicas whose lease is running, then reads the
// epoch marker, in one round trip (in that order on a single node). It
// fails with ErrStoreLost when the marker is gone: a registry that may
// have been lost with it cannot be trusted.
func (r *Redis) liveReplicas(ctx context.Context) ([]string, error) {
	return call(ctx, r, "replicas", func(ctx context.Context) ([]string, error) {
		pipe := r.client.Pipeline()
		live := liveReplicasScript.Eval(ctx, pipe, []string{r.keys.registry()})
		get := pipe.Get(ctx, r.keys.epoch())
		_, _ = pipe.Exec(ctx) // each command's error is inspected below
		ids, err := live.StringSlice()
		if err != nil {
			return nil, err
		}
		e, err := epochFromCmd(get)
		if err != nil {
			return nil, err
		}
		if err := r.observe(e); err != nil {
			return nil, err
		}
		return ids, nil
	})
}

// deregister removes replica from the registry.
func (r *Redis) deregister(ctx context.Context, replica string) error {
	_, err := call(ctx, r, "deregister", func(ctx context.Context) (struct{}, error) {
		err := r.client.HDel(ctx, r.keys.registry(), replica).Err()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return struct{}{}, err
	})
	return err
}
