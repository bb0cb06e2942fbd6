package revocation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"
)

// Redis defaults.
const (
	DefaultPrefix  = "capgate:"
	DefaultTimeout = 250 * time.Millisecond
	// maxPrefixLength bounds RedisOptions.Prefix.
	maxPrefixLength = 128
)

// RedisOptions configures NewRedis. The zero value is valid.
type RedisOptions struct {
	// Prefix starts every key and the channel; empty means DefaultPrefix.
	// Replicas that must see each other's revocations share one prefix.
	Prefix string
	// Timeout bounds every call to Redis, whatever the client's own
	// timeouts; zero means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures; nil discards them.
	Logger *slog.Logger
	// Breaker configures the circuit breaker.
	Breaker BreakerOptions
	// InitGrace is how long NewRedis, finding no epoch marker, waits for a
	// surviving replica to re-establish one before initialising a new
	// revocation set (see the package doc); zero means DefaultInitGrace.
	InitGrace time.Duration
}

// Validate reports every problem with o.
func (o RedisOptions) Validate() error {
	var errs []error
	if len(o.Prefix) > maxPrefixLength || strings.ContainsFunc(o.Prefix, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) {
		errs = append(errs, fmt.Errorf("%w: prefix %q: at most %d bytes, no space or control character", ErrInvalidOptions, o.Prefix, maxPrefixLength))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("%w: timeout %v is negative", ErrInvalidOptions, o.Timeout))
	}
	if o.InitGrace < 0 {
		errs = append(errs, fmt.Errorf("%w: init grace %v is negative", ErrInvalidOptions, o.InitGrace))
	}
	errs = append(errs, o.Breaker.Validate())
	return errors.Join(errs...)
}

func (o RedisOptions) withDefaults() RedisOptions {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.InitGrace == 0 {
		o.InitGrace = DefaultInitGrace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Redis is the shared store for several replicas: a single node, Sentinel
// or Cluster through a go-redis UniversalClient. Each Check is one pipelined
// round trip (one per node on Cluster); each Revoke is one Lua script that
// extends the key and publishes the event atomically. Every call is bounded
// by Timeout and guarded by a circuit breaker; any failure is ErrUnavailable.
//
// Every Check also reads the epoch marker and fails closed with
// ErrStoreLost while Redis has lost the set (see the package doc). Without
// persistence (AOF or RDB) Redis forgets every revocation when it restarts;
// Synced replicas write back what they remember and re-establish the
// marker.
type Redis struct {
	client  redis.UniversalClient
	keys    keyspace
	timeout time.Duration
	grace   time.Duration
	now     func() time.Time
	log     *slog.Logger
	breaker *breaker
	closed  atomic.Bool
	epoch   atomic.Pointer[string] // the marker last seen
	lost    atomic.Bool            // the marker was last seen absent
}

// NewRedis returns a Redis store on client after one PING and a read of
// the epoch marker; a missing marker is created after InitGrace unless a
// replica re-establishes it first. The client stays
// the caller's: Close does not close it. A *redis.Ring is refused, because
// its shards do not share pub/sub.
func NewRedis(ctx context.Context, client redis.UniversalClient, opts RedisOptions) (*Redis, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	switch client.(type) {
	case nil:
		return nil, fmt.Errorf("%w: nil redis client", ErrInvalidOptions)
	case *redis.Ring:
		return nil, fmt.Errorf("%w: redis.Ring is not supported (no shared pub/sub); use Cluster", ErrInvalidOptions)
	}
	opts = opts.withDefaults()
	r := &Redis{
		client:  client,
		keys:    keyspace{prefix: opts.Prefix},
		timeout: opts.Timeout,
		grace:   opts.InitGrace,
		now:     opts.Now,
		log:     opts.Logger,
		breaker: newBreaker(opts.Breaker, opts.Now),
	}
	if err := firstPing(ctx, client); err != nil {
		return nil, err
	}
	if _, err := r.initEpoch(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// firstPingTimeout bounds the PING of NewRedis. It is longer than the
// per-call timeout, so that a dial failure reports its cause ("connection
// refused", "no such host") rather than the call's deadline.
const firstPingTimeout = 10 * time.Second

// firstPing checks that Redis answers before the store is used, outside
// the breaker, with the client's own dial error as the cause.
func firstPing(ctx context.Context, client redis.UniversalClient) error {
	ctx, cancel := context.WithTimeout(ctx, firstPingTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("%w: first ping: %w", ErrUnavailable, err)
	}
	return nil
}

// Ping checks that Redis answers and holds the epoch marker, through the
// breaker and the timeout; for readiness probes. While Redis has lost the
// revocation set it fails with ErrStoreLost.
func (r *Redis) Ping(ctx context.Context) error {
	_, err := call(ctx, r, "ping", func(ctx context.Context) (struct{}, error) {
		pipe := r.client.Pipeline()
		ping := pipe.Ping(ctx)
		get := pipe.Get(ctx, r.keys.epoch())
		_, _ = pipe.Exec(ctx) // each command's error is inspected below
		if err := ping.Err(); err != nil {
			return struct{}{}, err
		}
		e, err := epochFromCmd(get)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, r.observe(e)
	})
	return err
}

// Revoke implements Store. It returns once Redis holds the revocation and
// has published it; Synced replicas apply it when the event reaches them,
// and answer from memory until then (at most MaxStaleness): only
// Synced.Revoke waits for the replicas (see the package doc).
func (r *Redis) Revoke(ctx context.Context, id string, until time.Time) error {
	if err := validateID(id); err != nil {
		return err
	}
	if err := validateTime("until", until); err != nil {
		return err
	}
	_, err := r.writeEntry(ctx, entry{name: id, cutoff: cutoff{untilMs: ceilMilli(until)}}, true, "")
	return err
}

// RevokePrincipal implements Store; like Revoke, it does not wait for the
// replicas.
func (r *Redis) RevokePrincipal(ctx context.Context, principal string, before, until time.Time) error {
	c, err := newCutoff(principal, before, until)
	if err != nil {
		return err
	}
	_, err = r.writeEntry(ctx, entry{principal: true, name: principal, cutoff: c}, true, "")
	return err
}

// notPublished is what writeEntry reports when it published nothing.
const notPublished = -1

// writeEntry runs the revoke script for e, publishing the event when
// publish is set, tagged with nonce when it is not empty. It returns the
// number of subscribers PUBLISH reported, or notPublished. An entry
// already expired is a no-op.
func (r *Redis) writeEntry(ctx context.Context, e entry, publish bool, nonce string) (int64, error) {
	ttl := e.untilMs - r.now().UnixMilli()
	if ttl <= 0 {
		return notPublished, r.usable()
	}
	script, keys, args := r.scriptFor(e, min(ttl, maxTTL.Milliseconds()), publish, nonce)
	n, err := call(ctx, r, "revoke", func(ctx context.Context) (int64, error) {
		return script.Run(ctx, r.client, keys, args...).Int64()
	})
	if err != nil || !publish {
		return notPublished, err
	}
	return n, nil
}

// maxTTL caps the TTL written for an entry kept "forever".
const maxTTL = 100 * 365 * 24 * time.Hour

// scriptFor returns the script, keys and arguments that write e.
func (r *Redis) scriptFor(e entry, ttl int64, publish bool, nonce string) (*redis.Script, []string, []any) {
	pub := "0"
	if publish {
		pub = "1"
	}
	until := strconv.FormatInt(e.untilMs, 10)
	if e.principal {
		before := strconv.FormatInt(e.beforeMs, 10)
		return revokePrincipalScript, []string{r.keys.principal(e.name)},
			[]any{ttl, before, until, e.name, r.keys.channel(), pub, nonce}
	}
	return revokeIDScript, []string{r.keys.id(e.name)}, []any{ttl, until, e.name, r.keys.channel(), pub, nonce}
}

// Check implements Store with one pipelined round trip: EXISTS for every id
// and GET for the principal's cutoff, between two reads of the epoch
// marker. A positive answer is returned even if another command of the
// pipeline failed; a negative one only if all of them succeeded and both
// reads found the same marker.
func (r *Redis) Check(ctx context.Context, q Query) (Result, error) {
	if err := validateQuery(q); err != nil {
		return Result{}, err
	}
	keys := make([]string, len(q.IDs), len(q.IDs)+1)
	for i, id := range q.IDs {
		keys[i] = r.keys.id(id)
	}
	if q.Principal != "" {
		keys = append(keys, r.keys.principal(q.Principal))
	}
	ids := slices.Clone(q.IDs)
	principal, issued := q.Principal, issuedMilli(q.IssuedAt)
	return call(ctx, r, "check", func(ctx context.Context) (Result, error) {
		return r.check(ctx, keys, ids, principal, issued)
	})
}

// check runs the Check pipeline; keys[i] is the key of ids[i], followed by
// the principal's key when principal is not empty.
func (r *Redis) check(ctx context.Context, keys, ids []string, principal string, issued int64) (Result, error) {
	pipe := r.client.Pipeline()
	epochBefore := pipe.Get(ctx, r.keys.epoch())
	exists := make([]*redis.IntCmd, len(ids))
	for i := range ids {
		exists[i] = pipe.Exists(ctx, keys[i])
	}
	var get *redis.StringCmd
	if principal != "" {
		get = pipe.Get(ctx, keys[len(ids)])
	}
	epochAfter := pipe.Get(ctx, r.keys.epoch())
	_, execErr := pipe.Exec(ctx)
	var failed error
	for i, cmd := range exists {
		switch n, err := cmd.Result(); {
		case err != nil:
			failed = firstErr(failed, err)
		case n == 1:
			return Result{Revoked: true, By: ids[i]}, nil
		case n != 0:
			failed = firstErr(failed, fmt.Errorf("%w: EXISTS %q answered %d", ErrCorrupt, keys[i], n))
		}
	}
	if get != nil {
		res, err := cutoffMatches(get, principal, issued)
		if res.Revoked {
			return res, nil
		}
		failed = firstErr(failed, err)
	}
	if failed == nil {
		failed = r.epochMatch(epochBefore, epochAfter)
	}
	if failed == nil && execErr != nil && !errors.Is(execErr, redis.Nil) {
		failed = execErr
	}
	return Result{}, failed
}

// cutoffMatches reads a principal's cutoff from get.
func cutoffMatches(get *redis.StringCmd, principal string, issued int64) (Result, error) {
	v, err := get.Result()
	if errors.Is(err, redis.Nil) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	before, err := parseMilli(v)
	if err != nil {
		return Result{}, fmt.Errorf("cutoff of %q: %w", principal, err)
	}
	if issued < before {
		return Result{Revoked: true, By: PrincipalPrefix + principal}, nil
	}
	return Result{}, nil
}

// firstErr keeps the first error.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// RedisStats describes the Redis store for metrics.
type RedisStats struct {
	// Breaker is the circuit breaker's state.
	Breaker BreakerState
	// ConsecutiveFailures is the current run of failed calls.
	ConsecutiveFailures int
	// Lost reports that the last read of the epoch marker found it gone:
	// checks fail closed until it is re-established.
	Lost bool
}

// Stats returns the store's current state.
func (r *Redis) Stats() RedisStats {
	st, n := r.breaker.snapshot()
	return RedisStats{Breaker: st, ConsecutiveFailures: n, Lost: r.lost.Load()}
}

// Close marks the store closed; later calls fail with ErrClosed. It does not
// close the client, which belongs to the caller. It is idempotent.
func (r *Redis) Close() error {
	r.closed.Store(true)
	return nil
}

func (r *Redis) usable() error {
	if r.closed.Load() {
		return fmt.Errorf("%w: %w", ErrUnavailable, ErrClosed)
	}
	return nil
}
