package approval

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
)

// OpenOptions are what Open builds a Store from, besides the config.
type OpenOptions struct {
	// Runtime's Redis, when set, holds the requests, so that a request
	// approved on one replica is redeemable on any other; nil keeps them
	// in memory. Its prefix starts every key and its timeout (required
	// with Redis) bounds every call. Its Getenv reads the webhook's
	// secret, its clock (nil means time.Now) times every request, and its
	// logger receives the webhook's delivery failures.
	platform.Runtime
	// Keys derive the MAC key of records on Redis (RecordKeyInfo), so that
	// a Redis writer cannot approve a request; required with Redis.
	Keys *captoken.KeySet
	// Audit receives one event per transition; nil records nothing.
	Audit *slog.Logger
	// Approvers returns the approvers the policy in force names (see
	// Options.Approvers).
	Approvers func() policy.Approvers
	// Ledger records every redemption where a rollback of the record
	// cannot undo it (see Options.Ledger): the gateway's revocation store.
	// Required with Redis.
	Ledger Ledger
	// ConsoleURL is the console's base address as browsers reach it, if
	// any: the webhook's chat formats link to each request there.
	ConsoleURL string
}

// Open returns the Store the gateway runs on: a Desk over Redis (each
// record sealed, see Sealed) or over memory, telling approvers through
// the webhook cfg names, if any. close stops the webhook's deliveries; it
// is never nil.
func Open(cfg *Config, o OpenOptions) (d *Desk, close func() error, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	var backend Backend = NewMemory(o.Now)
	if o.Redis != nil {
		if o.Keys == nil || o.Ledger == nil || o.Redis.Timeout <= 0 {
			return nil, nil, fmt.Errorf("%w: approvals on Redis need the key set, a ledger and a positive timeout", ErrInvalid)
		}
		key, err := o.Keys.DeriveKey(RecordKeyInfo)
		if err != nil {
			return nil, nil, err
		}
		if backend, err = Sealed(NewRedis(o.Redis.Client, o.Redis.Prefix, o.Redis.Timeout, o.Now), key); err != nil {
			return nil, nil, err
		}
	}
	opts, close := Options{Now: o.Now, Audit: o.Audit, Approvers: o.Approvers, Ledger: o.Ledger}, func() error { return nil }
	if cfg != nil {
		opts.MaxPending = cfg.MaxPendingPerPrincipal
	}
	if cfg != nil && cfg.Webhook != nil {
		hook, err := NewWebhook(*cfg.Webhook, WebhookOptions{Runtime: o.Runtime, ConsoleURL: o.ConsoleURL})
		if err != nil {
			return nil, nil, err
		}
		opts.Notifier, close = hook, hook.Close
	}
	return NewDesk(backend, opts), close, nil
}
