package freeze

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/platform"
)

// writeScript stores a change unless the hash holds a newer one for its
// name, and publishes it when stored. KEYS[1] is the hash; ARGV the
// field, the change's version, its JSON, the channel, and a garbled
// value the caller read for the field ("" for none), which is replaced
// whatever version it claims.
var writeScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and cur ~= ARGV[5] and string.sub(cur, 1, #ARGV[2]) >= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[2] .. ARGV[3])
return 1
`)

// shared is the set's copy in Redis.
type shared struct {
	client  redis.UniversalClient
	key     string
	channel string
	timeout time.Duration
}

func newShared(r *platform.Redis) *shared {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	return &shared{client: r.Client, key: r.Prefix + "frz", channel: r.Prefix + "frz:ev", timeout: timeout}
}

// encode is a change as the hash and the channel keep it: its version,
// then its JSON.
func encode(e Entry) (string, string, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return "", "", err
	}
	return e.version(), string(b), nil
}

// decode reads a value of the hash or a message of the channel: the
// version must be the entry's own, and the entry one the set accepts.
func decode(s string) (Entry, error) {
	var e Entry
	if len(s) < versionLen || json.Unmarshal([]byte(s[versionLen:]), &e) != nil {
		return Entry{}, fmt.Errorf("%w: a garbled entry", ErrInvalid)
	}
	if err := e.check(); err != nil {
		return Entry{}, err
	}
	if e.version() != s[:versionLen] {
		return Entry{}, fmt.Errorf("%w: an entry whose version is not its own", ErrInvalid)
	}
	return e, nil
}

// write stores e unless the hash holds a newer change; garbled, when not
// empty, is a value read for e's field that did not decode, replaced if
// it is still there.
func (r *shared) write(ctx context.Context, e Entry, garbled string) error {
	v, body, err := encode(e)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := writeScript.Run(ctx, r.client, []string{r.key}, e.key(), v, body, r.channel, garbled).Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}

// readAll reads the hash. Fields that do not decode are returned in bad,
// with their values.
func (r *shared) readAll(ctx context.Context) (entries []Entry, bad map[string]string, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	m, err := r.client.HGetAll(ctx, r.key).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for field, v := range m {
		e, err := decode(v)
		if err != nil || e.key() != field {
			if bad == nil {
				bad = map[string]string{}
			}
			bad[field] = v
			continue
		}
		entries = append(entries, e)
	}
	return entries, bad, nil
}
