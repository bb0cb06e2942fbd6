package revocation

import "github.com/redis/go-redis/v9"

// revokeIDScript sets an id key, extending its TTL and never shortening it,
// then publishes the event. A key without TTL (PTTL -1) is left alone.
//
//	KEYS[1] id key
//	ARGV[1] ttl ms   ARGV[2] until ms   ARGV[3] id
//	ARGV[4] channel  ARGV[5] "1" to publish
var revokeIDScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local cur = redis.call('PTTL', KEYS[1])
if cur == -2 or (cur >= 0 and cur < ttl) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
end
if ARGV[5] == '1' then
  redis.call('PUBLISH', ARGV[4], 'i:' .. ARGV[2] .. ':' .. ARGV[3])
end
return 1
`)

// revokePrincipalScript moves a principal's cutoff later (never earlier)
// and extends its TTL (never shortens it), then publishes the event with
// the cutoff now in force. A value that is not a decimal is overwritten.
//
//	KEYS[1] principal key
//	ARGV[1] ttl ms   ARGV[2] before ms   ARGV[3] until ms   ARGV[4] principal
//	ARGV[5] channel  ARGV[6] "1" to publish
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
if ARGV[6] == '1' then
  redis.call('PUBLISH', ARGV[5], 'p:' .. before .. ':' .. ARGV[3] .. ':' .. ARGV[4])
end
return 1
`)
