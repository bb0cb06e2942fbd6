package lab

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/capgate/capgate/gateway/a2e"
)

// Defaults of Options.
const (
	DefaultMaxSessions      = 1024
	DefaultMaxLineBytes     = 1 << 20
	DefaultHandshakeTimeout = time.Minute
	DefaultIdleTimeout      = time.Hour
	// OutboxLimit bounds the messages queued for a session's stream; the
	// oldest is dropped beyond it.
	OutboxLimit = 1024
)

// Options configure a Host. AuthToken is required.
type Options struct {
	// Logger receives refusals and failures; nil discards them.
	Logger *slog.Logger
	// Now is the host's clock (message timestamps, the clock tool,
	// recorded times); nil means time.Now.
	Now func() time.Time
	// AuthToken is the shared secret handshake/req must carry.
	AuthToken string
	// MaxParallel is announced in handshake/resp and enforced per
	// session; zero means a2e.DefaultMaxParallel.
	MaxParallel int
	// Version is the protocol version accepted; empty means a2e.Version1.
	Version string
	// Plugins replaces the quickstart plugins; nil means DefaultPlugins.
	Plugins []Plugin
	// Recorder records every /send line; nil means a new one.
	Recorder *Recorder
	// MaxLineBytes bounds a /send body; zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxSessions bounds open sessions; zero means DefaultMaxSessions.
	MaxSessions int
	// HandshakeTimeout ends a session that has not completed its handshake
	// this long after it was opened; zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// IdleTimeout ends a session that received nothing for this long;
	// zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// Validate reports every problem with o, joined; each matches
// ErrInvalidOptions.
func (o Options) Validate() error {
	var errs []error
	if o.AuthToken == "" {
		errs = append(errs, fmt.Errorf("%w: AuthToken is required", ErrInvalidOptions))
	}
	for name, v := range map[string]int64{"MaxParallel": int64(o.MaxParallel), "MaxLineBytes": int64(o.MaxLineBytes),
		"MaxSessions": int64(o.MaxSessions), "HandshakeTimeout": int64(o.HandshakeTimeout), "IdleTimeout": int64(o.IdleTimeout)} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%w: %s is negative", ErrInvalidOptions, name))
		}
	}
	return errors.Join(errs...)
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxParallel == 0 {
		o.MaxParallel = a2e.DefaultMaxParallel
	}
	if o.Version == "" {
		o.Version = a2e.Version1
	}
	if o.Plugins == nil {
		o.Plugins = DefaultPlugins(o.Now)
	}
	if o.Recorder == nil {
		o.Recorder = &Recorder{}
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return o
}

// DefaultPlugins returns the quickstart plugins of the quickstart world: basic-tools
// (reading now), kv-memory and gridworld, all priority 0. There is no
// chains plugin.
func DefaultPlugins(now func() time.Time) []Plugin {
	return []Plugin{NewBasicTools(now), NewKVMemory(), NewGridworld()}
}
