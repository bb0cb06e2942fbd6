package pushrelay

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/config"
)

// Relay is the push relay of one gateway: where its records live, how
// callers' targets are checked, who delivers, and the base of the relay
// URLs handed to agents.
type Relay struct {
	// Store keeps the relayed configs.
	Store Store
	// Targets check callers' push URLs.
	Targets Targets
	// Deliverer delivers pushes.
	Deliverer *Deliverer
	base      string
}

// Options are what Open needs beside the config.
type Options struct {
	// Key seals the records (derived from the gateway's key set under
	// KeyInfo); replicas sharing a Redis must share it.
	Key []byte
	// Redis, when set, holds the records (shared by every replica), keys
	// under Prefix, calls bounded by Timeout.
	Redis   redis.UniversalClient
	Prefix  string
	Timeout time.Duration
	// TTL is how long a record lives after its last write: the task
	// index's TTL.
	TTL time.Duration
	// Now is the clock of the in-memory store.
	Now func() time.Time
	// Logger, OnOutcome, After and RootCAs are the deliverer's
	// (DeliverOptions).
	Logger    *slog.Logger
	OnOutcome func(agent, outcome string)
	After     func(time.Duration) <-chan time.Time
	RootCAs   *x509.CertPool
}

// Open builds the relay cfg describes, or returns nil when cfg is nil
// (no relay). Close the returned relay to stop its deliveries.
func Open(cfg *config.PushRelay, o Options) (*Relay, error) {
	if cfg == nil {
		return nil, nil
	}
	var st Store
	var err error
	if o.Redis != nil {
		st, err = NewRedis(o.Redis, o.Prefix, o.TTL, o.Timeout, cfg.MaxConfigsPerPrincipal, o.Key)
	} else {
		st, err = NewMemory(o.Key, cfg.MaxConfigs, cfg.MaxConfigsPerPrincipal, o.TTL, o.Now)
	}
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(cfg.URL, "/") + "/a2a/"
	if _, err := url.Parse(base); err != nil {
		return nil, fmt.Errorf("pushrelay: url %q: %w", cfg.URL, err)
	}
	t := Targets{AllowHTTP: cfg.AllowHTTP, AllowPrivate: cfg.AllowPrivateTargets, Refused: []string{base}}
	d := NewDeliverer(DeliverOptions{Targets: t, RootCAs: o.RootCAs, Queue: cfg.QueueSize, Attempts: cfg.MaxAttempts,
		Backoff: cfg.Backoff.D(), After: o.After, Logger: o.Logger, OnOutcome: o.OnOutcome})
	return &Relay{Store: st, Targets: t, Deliverer: d, base: base}, nil
}

// Close stops the deliveries.
func (r *Relay) Close() error {
	if r == nil {
		return nil
	}
	return r.Deliverer.Close()
}

// URLFor is the relay URL of record id on agent: where the agent posts.
func (r *Relay) URLFor(agent, id string) string {
	return r.base + agent + "/push/" + id
}

// IDOf returns the relay id in u when u is one of agent's relay URLs.
func (r *Relay) IDOf(agent, u string) (string, bool) {
	id, ok := strings.CutPrefix(u, r.base+agent+"/push/")
	if !ok || id == "" || strings.ContainsAny(id, "/?#") {
		return "", false
	}
	return id, true
}
