package gateway

import (
	"fmt"
	"log/slog"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/config"
)

// approvals builds the approval store: on Redis when the gateway has one
// (so a request approved on one replica is redeemable on any other), in
// memory otherwise, with the webhook the config names. Records on Redis
// carry a MAC keyed from the capability key set, so that a Redis writer
// cannot approve a request.
func (b *Built) approvals(cfg *config.Config, opts BuildOptions, keys *captoken.KeySet, audit *slog.Logger) (approval.Store, error) {
	var backend approval.Backend = approval.NewMemory(opts.Now)
	if b.redis != nil {
		key, err := keys.DeriveKey(approval.RecordKeyInfo)
		if err != nil {
			return nil, fmt.Errorf("gateway: approvals: %w", err)
		}
		if backend, err = approval.Sealed(approval.NewRedis(b.redis, cfg.Redis.Prefix, cfg.Redis.Timeout.D(), opts.Now), key); err != nil {
			return nil, fmt.Errorf("gateway: approvals: %w", err)
		}
	}
	dopts := approval.Options{Now: opts.Now, Audit: audit}
	if cfg.Approvals != nil && cfg.Approvals.Webhook != nil {
		hook, err := approval.NewWebhook(*cfg.Approvals.Webhook, approval.WebhookOptions{
			Getenv: opts.Getenv, Logger: opts.Logger, Now: opts.Now,
		})
		if err != nil {
			return nil, fmt.Errorf("gateway: approvals: %w", err)
		}
		b.closers = append(b.closers, hook.Close)
		dopts.Notifier = hook
	}
	return approval.NewDesk(backend, dopts), nil
}
