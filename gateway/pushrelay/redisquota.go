package pushrelay

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// reserveScript claims a place for a record among its owner's, in one
// step on one key (so one Cluster slot): replicas putting at once cannot
// together exceed the bound. A place lasts until its score (Redis's
// clock); a record already placed keeps its place and has it extended.
//
//	KEYS[1] the owner's set   ARGV[1] member   ARGV[2] hold ms   ARGV[3] max
//	returns 1 placed, 0 the owner is at its bound
var reserveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

func (r *redisStore) ownerKey(owner string) string { return r.prefix + "pushowner:" + owner }

// ownerMember is a record's member in its owner's set.
func ownerMember(s slot) string { return s.agent + ":" + s.id }

// reserve claims the place of the record s among its owner's before it
// is written, refusing it with a *PrincipalFullError when the owner holds
// perOwner records already. A place outlasts its record (the record's ttl
// plus the longest a write may take), so that no record outlives the
// place it is counted in; deleting the record frees it at once. A place
// claimed for a write that then fails is kept until it lapses: the store
// cannot tell whether the write took effect.
func (r *redisStore) reserve(ctx context.Context, s slot) error {
	hold := (r.ttl + r.timeout).Milliseconds()
	n, err := reserveScript.Run(ctx, r.c, []string{r.ownerKey(s.owner)}, ownerMember(s), hold, r.perOwner).Int()
	if err != nil {
		return unavailable(err)
	}
	if n == 0 {
		return &PrincipalFullError{Owner: s.owner, Limit: r.perOwner}
	}
	return nil
}
