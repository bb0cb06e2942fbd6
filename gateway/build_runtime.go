package gateway

import (
	"context"
	"errors"
	"os"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
)

// runtime completes the caller's runtime into the one every part shares:
// files read with os.ReadFile unless told otherwise, the metrics on
// opts.Registry, the Redis client the config names (unless the caller
// gave the index or the revocation store, which then keep every part in
// memory), and the tracer (opts.TracerProvider's, or the config's).
// Given metrics or a given tracer are kept.
func (b *Built) runtime(ctx context.Context, cfg *config.Config, opts BuildOptions) (platform.Runtime, error) {
	rt := opts.Runtime
	if rt.Redis != nil {
		return rt, errors.New("gateway: the Redis client is opened from the config's redis section, not given")
	}
	if rt.ReadFile == nil {
		rt.ReadFile = os.ReadFile
	}
	var err error
	if rt.Metrics == nil {
		if rt.Metrics, err = newMetrics(opts.Registry, cfg, b.cacheStats); err != nil {
			return rt, err
		}
	}
	if cfg.Redis != nil && opts.Revocations == nil && opts.Index == nil {
		client, err := NewRedisClient(cfg.Redis, rt.Getenv)
		if err != nil {
			return rt, err
		}
		b.closers = append(b.closers, client.Close)
		rt.Redis = &platform.Redis{Client: client, Prefix: cfg.Redis.Prefix, Timeout: cfg.Redis.Timeout.D()}
	}
	if rt.Tracer == nil {
		tp := opts.TracerProvider
		if tp == nil {
			if tp, err = b.newTracerProvider(ctx, cfg); err != nil {
				return rt, err
			}
		}
		rt.Tracer = tp.Tracer(platform.TracerName)
	}
	return rt.WithDefaults(), nil
}
