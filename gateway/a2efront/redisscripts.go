package a2efront

import "github.com/redis/go-redis/v9"

// The scripts touch only keys of one session (one hash tag, so one Cluster
// slot), or only the session index.

// indexAddScript admits a session id into the index of live sessions and,
// for an anonymous reservation, into the anonymous index and its client's.
//
//	KEYS[1] index   KEYS[2] anonymous index   KEYS[3] the client's index
//	ARGV[1] now ms   ARGV[2] max   ARGV[3] id   ARGV[4] expiry ms
//	ARGV[5] anonymous max   ARGV[6] per-client max   ARGV[7] "1" if anonymous
//	returns 1 added, 0 full, -1 id exists, 2 anonymous share full,
//	3 client's share full
var indexAddScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return -1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
if ARGV[7] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 3 end
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
  redis.call('PEXPIREAT', KEYS[3], ARGV[4])
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
return 1
`)

// createScript stores a new session record, with the client key of an
// anonymous reservation beside it (for Delete to release it).
//
//	KEYS[1] session
//	ARGV[1] data   ARGV[2] ttl ms   ARGV[3] client key ("" if none)
//	returns 1 created, 0 exists
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 1, 'data', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'client', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// updateScript replaces a session record if its revision is unchanged.
//
//	KEYS[1] session
//	ARGV[1] expected rev   ARGV[2] data   ARGV[3] ttl ms
//	returns 1 updated, 0 conflict, -1 absent
var updateScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'rev')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(ARGV[1]) + 1, 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// admitScript puts a request in flight, within max.
//
//	KEYS[1] in-flight set   KEYS[2] session
//	ARGV[1] now ms   ARGV[2] request id   ARGV[3] max   ARGV[4] deadline ms
//	returns 1 admitted, 0 full, 2 duplicate, -1 no session
var admitScript = redis.NewScript(`
local ttl = redis.call('PTTL', KEYS[2])
if ttl == -2 then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`)

// publishScript queues a gateway message and wakes the subscribers.
//
//	KEYS[1] mailbox   KEYS[2] session
//	ARGV[1] message   ARGV[2] limit   ARGV[3] channel
//	returns 1 queued, -1 no session
var publishScript = redis.NewScript(`
local ttl = redis.call('PTTL', KEYS[2])
if ttl == -2 then return -1 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
redis.call('PUBLISH', ARGV[3], '1')
return 1
`)
