package gateway

import (
	"cmp"
	"fmt"

	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/pushrelay"
)

// pushRelay opens the push relay the config describes (nil without
// push_relay): its records on the runtime's Redis when it has one,
// sealed under a key derived from the capability key set, living as long
// as the task index's bindings; its deliveries stop with the gateway.
func (b *Built) pushRelay(cfg *config.Config, opts BuildOptions, caps *Capabilities) (*pushrelay.Relay, error) {
	if cfg.PushRelay == nil {
		return nil, nil
	}
	key, err := caps.Keys.DeriveKey(pushrelay.KeyInfo)
	if err != nil {
		return nil, fmt.Errorf("gateway: push relay key: %w", err)
	}
	o := pushrelay.Options{Key: key, TTL: cmp.Or(cfg.Limits.TaskTTL.D(), a2afront.DefaultTaskTTL), Now: opts.Now,
		Logger: opts.Logger, OnOutcome: opts.Metrics.ObservePush, RootCAs: opts.PushRootCAs}
	if opts.Redis != nil {
		o.Redis, o.Prefix, o.Timeout = opts.Redis.Client, opts.Redis.Prefix, opts.Redis.Timeout
	}
	r, err := pushrelay.Open(cfg.PushRelay, o)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	b.closers = append(b.closers, r.Close)
	return r, nil
}
