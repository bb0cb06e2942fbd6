package revocation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Detecting that Redis lost the revocation set.
//
// Redis holds one more key beside the revocations: the epoch marker, a
// random id without TTL that says "the revocation set under this prefix is
// complete". Whatever makes Redis forget the revocations (a restart without
// the data, FLUSHALL, a failover to an empty replica) takes the marker with
// it, so its absence, or a value other than the one last seen, is a loss.
//
//   - Redis.Check reads the marker before and after its lookups, in the
//     same round trip, and answers "not revoked" only when both reads find
//     the same marker; Redis.Ping checks it too. While it is absent every
//     Check that finds nothing fails with ErrStoreLost.
//   - Synced reads it on every resync and after every answered PING of its
//     subscription, comparing with the marker of its last resync. A
//     mismatch stops it answering from memory and starts a resync, which
//     writes back everything it holds and only then re-establishes the
//     marker (atomically, and only if nobody changed it meanwhile).
//   - A store that never saw a marker (a process just started) and finds
//     none holds nothing it could write back. It waits InitGrace before
//     creating the marker, and adopts one if a surviving replica
//     re-establishes it meanwhile. After the grace it initialises a new set:
//     a fresh deployment looks exactly like a loss that no running replica
//     survived, which is why a Redis without persistence is refused unless
//     allowed (CheckPersistence).
//
// On Redis Cluster the marker lives on one master: a loss confined to
// another master is not detected (run Cluster with persistence and
// replicas).

// DefaultInitGrace is how long a store that has never seen an epoch marker
// waits for a surviving replica to re-establish one before it initialises a
// new revocation set, when RedisOptions leave it zero. It is
// MinInitGrace(DefaultMaxStaleness, BreakerOptions{}).
const DefaultInitGrace = 4 * time.Second

// dialRetry is how often go-redis retries dialling once PoolSize dials in a
// row failed; until one succeeds, every new connection fails at once.
const dialRetry = time.Second

// MinInitGrace is the shortest InitGrace with which a store that never saw
// an epoch marker cannot initialise an empty set before a running Synced
// replica, with this maxStaleness and the breaker options of its Redis
// store, has written back what it holds after Redis came back empty:
//
//   - the replica retries its subscription at least every quarter of
//     maxStaleness (between 50 ms and 5 s);
//   - its breaker may refuse calls for up to CoolDown after Redis returns,
//     and go-redis may refuse new connections for up to a second (it
//     retries dialling once a second after PoolSize failed dials); these
//     run at the same time, and cost at most one more retry;
//   - the write-back itself (a SCAN, then the lost revocations, 256 per
//     round trip) happens before the replica waits to re-establish the
//     marker, and must fit in maxStaleness, which the grace adds.
//
// maxStaleness zero means DefaultMaxStaleness. The grace also satisfies
// the package doc's assumption InitGrace ≥ MaxStaleness.
func MinInitGrace(maxStaleness time.Duration, breaker BreakerOptions) time.Duration {
	if maxStaleness == 0 {
		maxStaleness = DefaultMaxStaleness
	}
	held := max(breaker.withDefaults().CoolDown, dialRetry)
	return maxStaleness + 2*reconnectCap(maxStaleness) + held
}

// epochPoll is how often the marker is read while waiting for the grace.
const epochPoll = 20 * time.Millisecond

// errEpochMoved means the marker changed while a resync wrote back: the
// resync is repeated.
var errEpochMoved = errors.New("revocation: epoch marker changed during resync")

// establishScript keeps or creates the epoch marker, only if it still holds
// what the caller read before writing back ("" for absent). It returns the
// marker in force, or nil when it had changed.
//
//	KEYS[1] marker   ARGV[1] expected ("" = absent)   ARGV[2] new epoch
var establishScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  if ARGV[1] ~= '' then return false end
  redis.call('SET', KEYS[1], ARGV[2])
  return ARGV[2]
end
if cur ~= ARGV[1] then return false end
return cur
`)

// epochRead is one read of the marker: its value and whether it exists.
type epochRead struct {
	value   string
	present bool
}

// fromCmd turns a GET of the marker into an epochRead.
func epochFromCmd(cmd *redis.StringCmd) (epochRead, error) {
	v, err := cmd.Result()
	switch {
	case errors.Is(err, redis.Nil):
		return epochRead{}, nil
	case err != nil:
		return epochRead{}, err
	}
	return epochRead{value: v, present: true}, nil
}

// readEpoch reads the marker through the breaker and the timeout.
func (r *Redis) readEpoch(ctx context.Context) (epochRead, error) {
	return call(ctx, r, "epoch", func(ctx context.Context) (epochRead, error) {
		return epochFromCmd(r.client.Get(ctx, r.keys.epoch()))
	})
}

// establish runs establishScript with expected ("" for absent). It returns
// errEpochMoved, unwrapped, when the marker changed.
func (r *Redis) establish(ctx context.Context, expected string) (string, error) {
	id := newToken()
	v, err := call(ctx, r, "establish epoch", func(ctx context.Context) (string, error) {
		v, err := establishScript.Run(ctx, r.client, []string{r.keys.epoch()}, expected, id).Text()
		if errors.Is(err, redis.Nil) {
			return "", nil
		}
		return v, err
	})
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", errEpochMoved
	}
	r.observe(epochRead{value: v, present: true})
	return v, nil
}

// initEpoch returns the marker in force, waiting up to the grace for one
// to appear before creating it. Used by a store that never saw a marker.
func (r *Redis) initEpoch(ctx context.Context) (string, error) {
	// The grace runs from the reply of the first read that found no
	// marker, so that it is at least that long after any loss.
	grace := time.NewTimer(r.grace)
	grace.Stop()
	defer grace.Stop()
	poll := time.NewTicker(min(epochPoll, r.grace))
	defer poll.Stop()
	graceRuns, graceOver := false, false
	for {
		e, err := r.readEpoch(ctx)
		if err != nil {
			return "", err
		}
		if e.present {
			r.observe(e)
			return e.value, nil
		}
		if !graceRuns {
			grace.Reset(r.grace)
			graceRuns = true
		}
		if graceOver {
			v, err := r.establish(ctx, "")
			if errors.Is(err, errEpochMoved) {
				continue
			}
			if err == nil {
				r.log.Warn("revocation: no epoch marker in redis; initialised a new revocation set (a fresh deployment, or a loss no running replica survived)", "key", r.keys.epoch())
			}
			return v, err
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w: waiting for the epoch marker: %w", ErrUnavailable, ctx.Err())
		case <-grace.C:
			graceOver = true
		case <-poll.C:
		}
	}
}

// observe records a read of the marker and reports whether the set may be
// trusted: only while the marker exists. The first read that finds it gone
// logs the loss and checks persistence once.
func (r *Redis) observe(e epochRead) error {
	if !e.present {
		if r.lost.CompareAndSwap(false, true) {
			r.log.Error("revocation: redis lost the revocation set (epoch marker gone); checks fail closed until a replica writes back and re-establishes it", "key", r.keys.epoch())
			go r.logPersistence(context.Background(), "after a loss")
		}
		return ErrStoreLost
	}
	if old := r.epoch.Load(); old == nil || *old != e.value {
		v := e.value
		if prev := r.epoch.Swap(&v); prev != nil && *prev != v {
			r.log.Warn("revocation: redis epoch changed; the revocation set was re-established", "from", *prev, "to", v)
		}
	}
	r.lost.Store(false)
	return nil
}

// epochMatch checks the two reads of the marker around a lookup: both must
// find the same marker, or Redis may have lost data between them.
func (r *Redis) epochMatch(before, after *redis.StringCmd) error {
	b, err := epochFromCmd(before)
	if err != nil {
		return err
	}
	a, err := epochFromCmd(after)
	if err != nil {
		return err
	}
	if !b.present || !a.present {
		return r.observe(epochRead{})
	}
	if a.value != b.value {
		return ErrStoreLost
	}
	return r.observe(a)
}
