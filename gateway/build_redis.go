package gateway

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/revocation"
)

// NewRedisClient returns the go-redis UniversalClient the config names: a
// single node from url, Sentinel from addrs with master_name, or Cluster
// from addrs alone.
func NewRedisClient(rc *config.Redis, getenv func(string) string) (redis.UniversalClient, error) {
	password := ""
	if rc.PasswordEnv != "" {
		if getenv == nil || getenv(rc.PasswordEnv) == "" {
			return nil, fmt.Errorf("gateway: redis: environment variable %s is empty", rc.PasswordEnv)
		}
		password = getenv(rc.PasswordEnv)
	}
	if rc.URL != "" {
		opts, err := redis.ParseURL(rc.URL)
		if err != nil {
			return nil, fmt.Errorf("gateway: %w", err) // go-redis's errors start with "redis: "
		}
		if password != "" {
			opts.Password = password
		}
		if rc.Username != "" {
			opts.Username = rc.Username
		}
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = rc.Timeout.D()*4, rc.Timeout.D(), rc.Timeout.D()
		return redis.NewClient(opts), nil
	}
	return redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: rc.Addrs, MasterName: rc.MasterName, Username: rc.Username, Password: password,
		DialTimeout: rc.Timeout.D() * 4, ReadTimeout: rc.Timeout.D(), WriteTimeout: rc.Timeout.D(),
	}), nil
}

// redisStores opens the Redis-backed revocation store (with its pub/sub
// local set) and capability index on the runtime's Redis.
func (b *Built) redisStores(ctx context.Context, cfg *config.Config, opts BuildOptions) (revocation.Store, capindex.Index, error) {
	client := opts.Redis.Client
	r, err := revocation.NewRedis(ctx, client, revocation.RedisOptions{
		Prefix: opts.Redis.Prefix, Timeout: opts.Redis.Timeout, Now: opts.Now, Logger: opts.Logger,
		InitGrace: revocation.MinInitGrace(cfg.Redis.MaxStaleness.D(), revocation.BreakerOptions{}),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: redis at %s: %w", redisAddrs(cfg.Redis), err)
	}
	b.closers = append(b.closers, r.Close)
	if err := r.CheckPersistence(ctx, cfg.Redis.AllowNoPersistence); err != nil {
		return nil, nil, fmt.Errorf("gateway: redis: %w (redis.allow_no_persistence accepts it)", err)
	}
	s, err := revocation.NewSynced(ctx, r, revocation.SyncedOptions{
		MaxStaleness: cfg.Redis.MaxStaleness.D(), Now: opts.Now, Logger: opts.Logger,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: redis revocation set: %w", err)
	}
	b.closers = append(b.closers, s.Close)
	b.readyChecks = append(b.readyChecks, s.Ready)
	return s, capindex.NewRedis(client, opts.Redis.Prefix, opts.Redis.Timeout, opts.Now), nil
}

// redisAddrs names where the config says Redis is, for error messages.
func redisAddrs(rc *config.Redis) string {
	if u, err := url.Parse(rc.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return strings.Join(rc.Addrs, ",")
}
