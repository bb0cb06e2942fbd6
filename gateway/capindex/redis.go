package capindex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the shared index of several replicas: any replica can serve a
// capability issued by any other. It works on a single node, Sentinel or
// Cluster through go-redis's UniversalClient.
//
// A record lives under PREFIX cap:{id} until the capability expires, in
// a strict binary form (encodeRecord); records written in the JSON form
// of earlier versions are still read. A
// sorted set per principal (and per holder), PREFIX capsby:{principal},
// scored by expiry, lists them for the admin API; members past their
// expiry are trimmed when the set is written. PREFIX capsall, scored the
// same way, lists every live capability for List. A listed id whose
// record does not decode, is not a string or is another capability's
// record is named in an *UnreadableError, never skipped silently: the
// capability may still be live. So is one whose record is gone although
// its score says the capability lives on past missingMargin (deleted, or
// evicted under maxmemory), as UnreadableError.Missing; see the package
// doc for what a listing cannot see.
type Redis struct {
	c redis.UniversalClient
	// inOrder is set when c sends a pipeline down one connection, whose
	// commands Redis runs in order: a *redis.Client, which talks to a
	// single node or to Sentinel's master. A Cluster (or any other
	// client) sends each command to its key's node, all at once.
	inOrder bool
	prefix  string
	timeout time.Duration
	now     func() time.Time
}

var _ Index = (*Redis)(nil)

// NewRedis returns an index on c. Keys start with prefix; every call is
// bounded by timeout.
func NewRedis(c redis.UniversalClient, prefix string, timeout time.Duration, now func() time.Time) *Redis {
	_, inOrder := c.(*redis.Client)
	return &Redis{c: c, inOrder: inOrder, prefix: prefix, timeout: timeout, now: now}
}

func (r *Redis) recordKey(id string) string { return r.prefix + "cap:" + id }
func (r *Redis) byKey(p string) string      { return r.prefix + "capsby:" + p }
func (r *Redis) allKey() string             { return r.prefix + "capsall" }

// Put stores rec until it expires. It writes the record before the
// entries in the sorted sets that list it, so that no listing meets an
// entry whose record is yet to come. When Put fails it takes back what
// it may have written (see takeBack), so that no listing names a
// capability whose issuance was refused; that may take another timeout.
func (r *Redis) Put(ctx context.Context, rec Record) error {
	ttl := rec.Expires.Sub(r.now())
	if ttl <= 0 {
		return nil
	}
	b, err := encodeRecord(rec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.put(ctx, rec, b, ttl); err != nil {
		return errors.Join(fmt.Errorf("%w: %w", ErrUnavailable, err), r.takeBack(ctx, rec))
	}
	return nil
}

// listKeys are the sorted sets that list rec.
func (r *Redis) listKeys(rec Record) []string {
	return []string{r.byKey(rec.Principal), r.byKey(rec.Holder), r.allKey()}
}

// put sets rec's record b, then lists it in the sorted sets, trimming
// their expired members: in one pipeline when Redis runs it in order,
// else only once Redis has taken the record.
func (r *Redis) put(ctx context.Context, rec Record, b []byte, ttl time.Duration) error {
	key := r.recordKey(rec.CapabilityID)
	if !r.inOrder {
		if err := r.c.Set(ctx, key, b, ttl).Err(); err != nil {
			return err
		}
	}
	nowScore := fmt.Sprint(r.now().UnixMilli())
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		if r.inOrder {
			p.Set(ctx, key, b, ttl)
		}
		for _, k := range r.listKeys(rec) {
			p.ZAdd(ctx, k, redis.Z{Score: float64(rec.Expires.UnixMilli()), Member: rec.CapabilityID})
			p.ZRemRangeByScore(ctx, k, "-inf", "("+nowScore)
			p.ExpireGT(ctx, k, ttl)
			p.ExpireNX(ctx, k, ttl)
		}
		return nil
	})
	return err
}

// takeBack undoes a failed Put of rec, within a timeout of its own: it
// removes the id from the sorted sets, then, once they no longer list
// it, deletes the record, which the failure may or may not have left.
// While an entry may remain, the record is kept: a listing then reads it
// as any other live record, which can be revoked by id, rather than
// naming it missing. The error says which it could not take back.
func (r *Redis) takeBack(ctx context.Context, rec Record) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range r.listKeys(rec) {
			p.ZRem(ctx, k, rec.CapabilityID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("capindex: %s may still be listed: %w", rec.CapabilityID, err)
	}
	if err := r.c.Del(ctx, r.recordKey(rec.CapabilityID)).Err(); err != nil {
		return fmt.Errorf("capindex: the record of %s may remain: %w", rec.CapabilityID, err)
	}
	return nil
}

// Get returns the live record for id.
func (r *Redis) Get(ctx context.Context, id string) (Record, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	b, err := r.c.Get(ctx, r.recordKey(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return Record{}, ErrNotFound
	case err != nil:
		return Record{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rec, err := decodeRecord(b)
	if err != nil || rec.CapabilityID != id {
		// A garbled record is unusable, not absent: fail closed.
		return Record{}, fmt.Errorf("%w: garbled record for %s", ErrUnavailable, id)
	}
	if !r.now().Before(rec.Expires) {
		return Record{}, ErrNotFound
	}
	return rec, nil
}

// ListByPrincipal returns the live records of principal or holder p.
func (r *Redis) ListByPrincipal(ctx context.Context, p string) ([]Record, error) {
	return r.list(ctx, r.byKey(p), Filter{Principal: p}, 0, math.MaxInt)
}

// maxScan bounds the ids one List reads before filtering.
const maxScan = 10 * MaxList

// List returns the live records matching f, the newest f.Max() of them
// among the maxScan latest to expire (of f.Principal's, when set).
func (r *Redis) List(ctx context.Context, f Filter) ([]Record, error) {
	key := r.allKey()
	if f.Principal != "" {
		key = r.byKey(f.Principal)
	}
	return r.list(ctx, key, f, maxScan, f.Max())
}

// missingMargin is how far past now a listed capability's expiry must lie
// for its absent record to be named missing rather than taken as expired.
// The score is the writing replica's clock (the record's Expires), and
// Redis expires the record a TTL after the write, a TTL that replica took
// from the same clock; a listing replica whose clock runs behind the
// writer's by δ, or reads a Redis whose clock stepped forward by δ, finds
// the record of a capability that expired on time gone while its score
// still lies δ ahead of its own now. The margin is the clock
// skew the gateway already tolerates on token times (the verifier's 30 s
// leeway), and covers the wait between reading the ids and reading the
// records. A record deleted less than the margin before its capability
// expires is not named.
const missingMargin = 30 * time.Second

// errGone is a listed GET's answer when the record is not there.
var errGone = errors.New("capindex: record gone")

// list reads the ids of the sorted set key, at most scan of them (0: all),
// and returns the newest max of their live records that match f, with an
// *UnreadableError naming the records it could not read.
func (r *Redis) list(ctx context.Context, key string, f Filter, scan int64, max int) ([]Record, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	entries, err := r.c.ZRevRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
		Min: fmt.Sprint(r.now().UnixMilli()), Max: "+inf", Count: scan,
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	ids, cmds := r.getAll(ctx, entries)
	now := r.now()
	// An absent record whose score lies beyond this (in unix ms) should
	// still be there: it was deleted or evicted.
	missingAfter := float64(now.Add(missingMargin).UnixMilli())
	var out []Record
	var u UnreadableError
	for i, id := range ids {
		rec, err := listed(cmds[i], id)
		switch {
		case errors.Is(err, errGone):
			if entries[i].Score > missingAfter {
				u.IDs, u.Missing = append(u.IDs, id), append(u.Missing, id)
			}
		case errors.Is(err, ErrUnreadable):
			u.IDs = append(u.IDs, id)
		case err != nil:
			return nil, err
		case now.Before(rec.Expires) && f.Match(rec):
			out = append(out, rec)
		}
	}
	out = sortAndCut(out, max)
	if len(u.IDs) > 0 {
		slices.Sort(u.IDs)
		slices.Sort(u.Missing)
		return out, &u
	}
	return out, nil
}

// getAll reads the records of the listed entries in one pipeline and
// returns their ids (go-redis reads every member as a string) and GETs.
// The pipeline's error is its first command's; each command's own error
// says what became of its record.
func (r *Redis) getAll(ctx context.Context, entries []redis.Z) ([]string, []*redis.StringCmd) {
	ids := make([]string, len(entries))
	cmds := make([]*redis.StringCmd, len(entries))
	_, _ = r.c.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, z := range entries {
			ids[i], _ = z.Member.(string)
			cmds[i] = pl.Get(ctx, r.recordKey(ids[i]))
		}
		return nil
	})
	return ids, cmds
}

// listed reads the record a listing's GET of id answered: errGone when
// there is none, ErrUnreadable when it is there but is not id's record,
// ErrUnavailable when Redis failed.
func listed(cmd *redis.StringCmd, id string) (Record, error) {
	b, err := cmd.Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return Record{}, errGone
	case redis.HasErrorPrefix(err, "WRONGTYPE"):
		return Record{}, ErrUnreadable
	case err != nil:
		return Record{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rec, err := decodeRecord(b)
	if err != nil || rec.CapabilityID != id {
		return Record{}, ErrUnreadable
	}
	return rec, nil
}

// Close does not close the client, which the caller owns.
func (r *Redis) Close() error { return nil }
