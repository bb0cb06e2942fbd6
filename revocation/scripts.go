package revocation

import "github.com/redis/go-redis/v9"

// revokeIDScript sets an id key, extending its TTL and never shortening it,
// then publishes the event, tagged "n:<nonce>:" when a nonce is given. It
// returns what PUBLISH returned (the number of subscribers the event
// reached on this node), 0 when it did not publish. A key without TTL
// (PTTL -1) is left alone.
//
//	KEYS[1] id key
//	ARGV[1] ttl ms   ARGV[2] until ms   ARGV[3] id
//	ARGV[4] channel  ARGV[5] "1" to publish   ARGV[6] nonce or ""
var revokeIDScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local cur = redis.call('PTTL', KEYS[1])
if cur == -2 or (cur >= 0 and cur < ttl) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
end
if ARGV[5] ~= '1' then return 0 end
local ev = 'i:' .. ARGV[2] .. ':' .. ARGV[3]
if ARGV[6] ~= '' then ev = 'n:' .. ARGV[6] .. ':' .. ev end
return redis.call('PUBLISH', ARGV[4], ev)
`)

// revokePrincipalScript moves a principal's cutoff later (never earlier)
// and extends its TTL (never shortens it), then publishes the event with
// the cutoff now in force, tagged like revokeIDScript's, and returns the
// same. A value that is not a decimal is overwritten.
//
//	KEYS[1] principal key
//	ARGV[1] ttl ms   ARGV[2] before ms   ARGV[3] until ms   ARGV[4] principal
//	ARGV[5] channel  ARGV[6] "1" to publish   ARGV[7] nonce or ""
var revokePrincipalScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local before = ARGV[2]
local cur = redis.call('GET', KEYS[1])
if cur and string.match(cur, '^%d+$') and tonumber(cur) > tonumber(before) then
  before = cur
end
local pttl = redis.call('PTTL', KEYS[1])
if pttl == -1 or pttl >= ttl then
  redis.call('SET', KEYS[1], before, 'KEEPTTL')
else
  redis.call('SET', KEYS[1], before, 'PX', ttl)
end
if ARGV[6] ~= '1' then return 0 end
local ev = 'p:' .. before .. ':' .. ARGV[3] .. ':' .. ARGV[4]
if ARGV[7] ~= '' then ev = 'n:' .. ARGV[7] .. ':' .. ev end
return redis.call('PUBLISH', ARGV[5], ev)
`)

// registerScript records a replica's lease in the registry: its deadline
// is the Redis clock (TIME, milliseconds, rounded down) plus the lease.
//
//	KEYS[1] registry   ARGV[1] replica id   ARGV[2] lease ms
var registerScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
return 1
`)

// liveReplicasScript returns the replicas whose lease deadline is still
// ahead of the Redis clock, and drops the others (and any value that is
// not a number).
//
//	KEYS[1] registry
var liveReplicasScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #all, 2 do
  local d = tonumber(all[i + 1])
  if d and d > now then
    live[#live + 1] = all[i]
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return live
`)
