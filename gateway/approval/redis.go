package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/policy"
)

// maxUpdateRetries bounds the optimistic transaction of Update under
// contention.
const maxUpdateRetries = 8

// listBatch is how many records List reads in one round trip.
const listBatch = 64

// Redis is the Backend shared by several replicas. A request lives under
// PREFIX apr:{id} until its deadline plus Retention; the sorted set PREFIX
// aprs, scored by creation time, lists them. Update is an optimistic
// transaction (WATCH/MULTI), so two replicas redeeming the same approval
// cannot both succeed.
type Redis struct {
	c       redis.UniversalClient
	prefix  string
	timeout time.Duration
	now     func() time.Time
}

var _ Backend = (*Redis)(nil)

// NewRedis returns a backend on c. Keys start with prefix; every call is
// bounded by timeout.
func NewRedis(c redis.UniversalClient, prefix string, timeout time.Duration, now func() time.Time) *Redis {
	return &Redis{c: c, prefix: prefix, timeout: timeout, now: now}
}

func (r *Redis) key(id string) string { return r.prefix + "apr:" + id }
func (r *Redis) listKey() string      { return r.prefix + "aprs" }

func (r *Redis) keep(req *Request) time.Duration {
	return req.Deadline.Add(Retention).Sub(r.now())
}

// Put stores a new request.
func (r *Redis) Put(ctx context.Context, req Request) error {
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("approval: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.c.Set(ctx, r.key(req.ID), b, r.keep(&req)).Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err := r.c.ZAdd(ctx, r.listKey(), redis.Z{Score: float64(req.CreatedAt.UnixMilli()), Member: req.ID}).Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// Get returns the stored request.
func (r *Redis) Get(ctx context.Context, id string) (Request, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return r.read(ctx, r.c, id)
}

func (r *Redis) read(ctx context.Context, c redis.Cmdable, id string) (Request, error) {
	return decode(id, c.Get(ctx, r.key(id)))
}

// decode returns the request a GET of id's key answered.
func decode(id string, get *redis.StringCmd) (Request, error) {
	b, err := get.Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return Request{}, ErrNotFound
	case err != nil:
		return Request{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var req Request
	if err := json.Unmarshal(b, &req); err != nil || req.ID != id {
		// A garbled record is unusable, not absent: fail closed.
		return Request{}, fmt.Errorf("%w: garbled request %s", ErrUnavailable, id)
	}
	return req, nil
}

// List returns the stored requests keep accepts, newest first, reading
// listBatch records per round trip: one pipeline trims and reads the
// list, one per batch reads the records, and one at the end trims the ids
// whose record is gone.
func (r *Redis) List(ctx context.Context, keep func(*Request) bool, limit int) ([]Request, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	minScore := strconv.FormatInt(r.now().Add(-Retention-2*policy.MaxApprovalWait).UnixMilli(), 10)
	var listed *redis.StringSliceCmd
	_, _ = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRemRangeByScore(ctx, r.listKey(), "-inf", "("+minScore)
		listed = p.ZRevRangeByScore(ctx, r.listKey(), &redis.ZRangeBy{Min: minScore, Max: "+inf"})
		return nil
	})
	ids, err := listed.Result()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var out []Request
	var gone []any
	defer func() {
		if len(gone) > 0 {
			r.c.ZRem(ctx, r.listKey(), gone...)
		}
	}()
	for len(ids) > 0 && len(out) < limit {
		batch := ids[:min(listBatch, len(ids))]
		ids = ids[len(batch):]
		gets := make([]*redis.StringCmd, len(batch))
		// Each GET's own error is read below; the pipeline's is the first.
		_, _ = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range batch {
				gets[i] = p.Get(ctx, r.key(id))
			}
			return nil
		})
		for i, id := range batch {
			req, err := decode(id, gets[i])
			switch {
			case errors.Is(err, ErrNotFound):
				gone = append(gone, id)
				continue
			case err != nil:
				return nil, err
			}
			if keep(&req) {
				if out = append(out, req); len(out) == limit {
					break
				}
			}
		}
	}
	return out, nil
}

// Update applies fn inside an optimistic transaction on the request's key.
func (r *Redis) Update(ctx context.Context, id string, fn func(*Request) (bool, error)) (Request, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var out Request
	var fnErr error
	txf := func(tx *redis.Tx) error {
		req, err := r.read(ctx, tx, id)
		if err != nil {
			return err
		}
		write, ferr := fn(&req)
		out, fnErr = req, ferr
		if !write {
			return nil
		}
		b, err := json.Marshal(req)
		if err != nil {
			return fmt.Errorf("approval: %w", err)
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, r.key(id), b, r.keep(&req))
			return nil
		})
		return err
	}
	for range maxUpdateRetries {
		err := r.c.Watch(ctx, txf, r.key(id))
		switch {
		case errors.Is(err, redis.TxFailedErr):
			continue
		case errors.Is(err, ErrNotFound) || errors.Is(err, ErrUnavailable):
			return Request{}, err
		case err != nil:
			return Request{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return out, fnErr
	}
	return Request{}, fmt.Errorf("%w: request %s kept changing under contention", ErrUnavailable, id)
}
