package a2efront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis store defaults.
const (
	DefaultRedisPrefix       = "capgate:a2e:"
	DefaultRedisTimeout      = 500 * time.Millisecond
	DefaultRedisPollInterval = time.Second
)

// RedisOptions configure NewRedisStore. The zero value is valid.
type RedisOptions struct {
	// Prefix starts every key and channel; replicas sharing sessions
	// share one prefix. Empty means DefaultRedisPrefix.
	Prefix string
	// Timeout bounds every call to Redis; zero means DefaultRedisTimeout.
	Timeout time.Duration
	// PollInterval is how often a subscription looks at its mailbox
	// without a pub/sub wake-up (a safety net for lost notifications);
	// zero means DefaultRedisPollInterval.
	PollInterval time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures; nil discards them.
	Logger *slog.Logger
}

// RedisStore is the SessionStore shared by replicas: a single node,
// Sentinel or Cluster through a go-redis UniversalClient. A session is a
// hash (revision and JSON record) with a TTL; its requests in flight are
// a sorted set scored by deadline; its gateway messages are a capped list
// with a pub/sub channel to wake the replica holding the stream. All keys
// of one session share a hash tag, so every script runs on one Cluster
// slot. Every failure wraps ErrStoreUnavailable.
type RedisStore struct {
	client redis.UniversalClient
	opts   RedisOptions
}

var _ SessionStore = (*RedisStore)(nil)

// NewRedisStore returns a store on client, which the caller keeps owning
// (Close does not close it).
func NewRedisStore(client redis.UniversalClient, opts RedisOptions) (*RedisStore, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil Redis client", ErrInvalidConfig)
	}
	if opts.Timeout < 0 || opts.PollInterval < 0 {
		return nil, fmt.Errorf("%w: negative Redis timeout or poll interval", ErrInvalidConfig)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultRedisPrefix
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultRedisTimeout
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = DefaultRedisPollInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &RedisStore{client: client, opts: opts}, nil
}

func (r *RedisStore) tag(id string) string        { return r.opts.Prefix + "{" + id + "}" }
func (r *RedisStore) sessionKey(id string) string { return r.tag(id) + ":s" }
func (r *RedisStore) flightKey(id string) string  { return r.tag(id) + ":q" }
func (r *RedisStore) mboxKey(id string) string    { return r.tag(id) + ":m" }
func (r *RedisStore) channel(id string) string    { return r.tag(id) + ":n" }
func (r *RedisStore) indexKey() string            { return r.opts.Prefix + "{sessions}" }
func (r *RedisStore) anonKey() string             { return r.indexKey() + ":anon" }
func (r *RedisStore) clientKey(c string) string   { return r.anonKey() + ":" + c }

// redisCall runs fn bounded by Timeout, even if the client ignores context
// deadlines; any error wraps ErrStoreUnavailable.
func redisCall[T any](ctx context.Context, r *RedisStore, op string, fn func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return res.v, fmt.Errorf("%w: %s: %w", ErrStoreUnavailable, op, res.err)
		}
		return res.v, nil
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w: %s: %w", ErrStoreUnavailable, op, ctx.Err())
	}
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// Create implements SessionStore. The indexes share one hash tag, so the
// limits are checked in one script on one Cluster slot.
func (r *RedisStore) Create(ctx context.Context, s Session, lim Limits) error {
	if !validSessionID(s.ID) {
		return fmt.Errorf("%w: invalid session id", ErrConflict)
	}
	now := r.opts.Now()
	ttl := s.ExpiresAt.Sub(now).Milliseconds()
	if ttl <= 0 {
		return fmt.Errorf("%w: session already expired", ErrConflict)
	}
	s.Rev = 1
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	anonymous := "0"
	if s.Client != "" {
		anonymous = "1"
	}
	added, err := redisCall(ctx, r, "create", func(ctx context.Context) (int64, error) {
		return indexAddScript.Run(ctx, r.client, []string{r.indexKey(), r.anonKey(), r.clientKey(s.Client)},
			ms(now), lim.Max, s.ID, ms(s.ExpiresAt), lim.Anonymous, lim.PerClient, anonymous).Int64()
	})
	if err == nil && added != 1 {
		return indexRefusal(added)
	}
	if err != nil {
		return err
	}
	created, err := redisCall(ctx, r, "create", func(ctx context.Context) (int64, error) {
		return createScript.Run(ctx, r.client, []string{r.sessionKey(s.ID)}, data, ttl, s.Client).Int64()
	})
	if err == nil && created == 1 {
		return nil
	}
	r.unindex(ctx, s.ID, s.Client)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: session id exists", ErrConflict)
}

// indexRefusal is the error for an indexAddScript result other than 1.
func indexRefusal(res int64) error {
	switch res {
	case 0:
		return ErrSessionLimit
	case 2:
		return ErrAnonymousLimit
	case 3:
		return ErrClientLimit
	}
	return fmt.Errorf("%w: session id exists", ErrConflict)
}

// unindex removes id from the indexes (and from client's, if any), best
// effort.
func (r *RedisStore) unindex(ctx context.Context, id, client string) {
	if _, err := redisCall(ctx, r, "unindex", func(ctx context.Context) ([]redis.Cmder, error) {
		return r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.ZRem(ctx, r.indexKey(), id)
			r.release(ctx, p, id, client)
			return nil
		})
	}); err != nil {
		r.opts.Logger.Warn("a2efront: removing a session from the index", "error", err)
	}
}

// release queues the removal of id from the anonymous indexes.
func (r *RedisStore) release(ctx context.Context, p redis.Pipeliner, id, client string) {
	p.ZRem(ctx, r.anonKey(), id)
	if client != "" {
		p.ZRem(ctx, r.clientKey(client), id)
	}
}

// Get implements SessionStore.
func (r *RedisStore) Get(ctx context.Context, id string) (Session, error) {
	if !validSessionID(id) {
		return Session{}, ErrSessionNotFound
	}
	vals, err := redisCall(ctx, r, "get", func(ctx context.Context) ([]any, error) {
		return r.client.HMGet(ctx, r.sessionKey(id), "rev", "data").Result()
	})
	if err != nil {
		return Session{}, err
	}
	if len(vals) != 2 || vals[0] == nil || vals[1] == nil {
		return Session{}, ErrSessionNotFound
	}
	revText, _ := vals[0].(string)
	data, _ := vals[1].(string)
	var s Session
	rev, perr := strconv.ParseInt(revText, 10, 64)
	if perr != nil || json.Unmarshal([]byte(data), &s) != nil || s.ID != id || s.Rev != rev {
		return Session{}, fmt.Errorf("%w: corrupt session record", ErrStoreUnavailable)
	}
	if !s.ExpiresAt.After(r.opts.Now()) {
		return Session{}, ErrSessionNotFound
	}
	return s, nil
}

// Update implements SessionStore.
func (r *RedisStore) Update(ctx context.Context, s Session) (Session, error) {
	if !validSessionID(s.ID) {
		return Session{}, ErrSessionNotFound
	}
	ttl := s.ExpiresAt.Sub(r.opts.Now()).Milliseconds()
	if ttl <= 0 {
		return Session{}, ErrSessionNotFound
	}
	next := s
	next.Rev = s.Rev + 1
	data, err := json.Marshal(next)
	if err != nil {
		return Session{}, err
	}
	res, err := redisCall(ctx, r, "update", func(ctx context.Context) (int64, error) {
		return updateScript.Run(ctx, r.client, []string{r.sessionKey(s.ID)}, s.Rev, data, ttl).Int64()
	})
	switch {
	case err != nil:
		return Session{}, err
	case res < 0:
		return Session{}, ErrSessionNotFound
	case res == 0:
		return Session{}, ErrConflict
	}
	if _, err := redisCall(ctx, r, "update index", func(ctx context.Context) ([]redis.Cmder, error) {
		return r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.ZAddXX(ctx, r.indexKey(), redis.Z{Score: float64(ms(s.ExpiresAt)), Member: s.ID})
			if s.Client != "" && s.Principal != "" {
				r.release(ctx, p, s.ID, s.Client) // authenticated: no longer anonymous
			}
			return nil
		})
	}); err != nil {
		r.opts.Logger.Warn("a2efront: updating the session index", "error", err)
	}
	return next, nil
}

// Delete implements SessionStore.
func (r *RedisStore) Delete(ctx context.Context, id string) error {
	if !validSessionID(id) {
		return nil
	}
	client, err := redisCall(ctx, r, "delete", func(ctx context.Context) (string, error) {
		var get *redis.StringCmd
		var del *redis.IntCmd
		_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			get = p.HGet(ctx, r.sessionKey(id), "client")
			del = p.Del(ctx, r.sessionKey(id), r.flightKey(id), r.mboxKey(id))
			return nil
		}) // each command's error is inspected below
		if err := get.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return "", err
		}
		return get.Val(), del.Err()
	})
	if err != nil {
		return err
	}
	r.unindex(ctx, id, client)
	return nil
}

// Admit implements SessionStore.
func (r *RedisStore) Admit(ctx context.Context, id, reqID string, max int, deadline time.Time) (Admission, error) {
	if !validSessionID(id) {
		return 0, ErrSessionNotFound
	}
	res, err := redisCall(ctx, r, "admit", func(ctx context.Context) (int64, error) {
		return admitScript.Run(ctx, r.client, []string{r.flightKey(id), r.sessionKey(id)},
			ms(r.opts.Now()), reqID, max, ms(deadline)).Int64()
	})
	switch {
	case err != nil:
		return 0, err
	case res < 0:
		return 0, ErrSessionNotFound
	case res == 0:
		return Full, nil
	case res == 2:
		return Duplicate, nil
	}
	return Admitted, nil
}

// Complete implements SessionStore.
func (r *RedisStore) Complete(ctx context.Context, id, reqID string) (bool, error) {
	if !validSessionID(id) {
		return false, ErrSessionNotFound
	}
	n, err := redisCall(ctx, r, "complete", func(ctx context.Context) (int64, error) {
		return r.client.ZRem(ctx, r.flightKey(id), reqID).Result()
	})
	return n > 0, err
}

// InFlight implements SessionStore.
func (r *RedisStore) InFlight(ctx context.Context, id string) (int, error) {
	if !validSessionID(id) {
		return 0, ErrSessionNotFound
	}
	n, err := redisCall(ctx, r, "in flight", func(ctx context.Context) (int64, error) {
		return r.client.ZCount(ctx, r.flightKey(id), "("+strconv.FormatInt(ms(r.opts.Now()), 10), "+inf").Result()
	})
	return int(n), err
}

// Publish implements SessionStore.
func (r *RedisStore) Publish(ctx context.Context, id string, msg []byte) error {
	if !validSessionID(id) {
		return ErrSessionNotFound
	}
	res, err := redisCall(ctx, r, "publish", func(ctx context.Context) (int64, error) {
		return publishScript.Run(ctx, r.client, []string{r.mboxKey(id), r.sessionKey(id)}, msg, MailboxLimit, r.channel(id)).Int64()
	})
	if err == nil && res < 0 {
		return ErrSessionNotFound
	}
	return err
}

// Close implements SessionStore. The client stays open.
func (r *RedisStore) Close() error { return nil }

// validSessionID accepts 1 to 128 bytes of [A-Za-z0-9_-], so an id can
// never break out of its hash tag.
func validSessionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
