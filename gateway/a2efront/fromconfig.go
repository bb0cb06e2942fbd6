package a2efront

import (
	"fmt"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/config"
)

// OpenOptions are what Open builds a Front from, besides the hosts: the
// Deps (Sessions and RecordKey are Open's to fill). The runtime's Getenv
// reads each host's secret. Its Redis, when set, holds the sessions, so
// that any replica serves any session; keys start with its prefix
// followed by "a2e:", and its timeout bounds every call. Nil keeps them
// in memory.
type OpenOptions struct {
	Deps
	// Keys derive the session records' MAC key (RecordKeyInfo), the same
	// on every replica. Required.
	Keys *captoken.KeySet
}

// Open builds the Front for the hosts of the gateway's config (a2e_hosts),
// or returns nil when there are none. close closes the session store; it is never nil.
func Open(hosts []config.A2EHost, o OpenOptions) (f *Front, close func() error, err error) {
	if len(hosts) == 0 {
		return nil, func() error { return nil }, nil
	}
	cfg := Config{Hosts: make([]Host, 0, len(hosts))}
	for _, h := range hosts {
		token := ""
		if h.AuthTokenEnv != "" {
			if o.Getenv == nil || o.Getenv(h.AuthTokenEnv) == "" {
				return nil, nil, fmt.Errorf("%w: host %s: environment variable %s is empty", ErrInvalidConfig, h.Name, h.AuthTokenEnv)
			}
			token = o.Getenv(h.AuthTokenEnv)
		}
		cfg.Hosts = append(cfg.Hosts, Host{Name: h.Name, URL: h.URL, AuthToken: token, Capabilities: h.Capabilities, RequireCredentials: h.RequireCredentials})
	}
	if o.Keys == nil {
		return nil, nil, fmt.Errorf("%w: Open needs the key set", ErrInvalidConfig)
	}
	if o.RecordKey, err = o.Keys.DeriveKey(RecordKeyInfo); err != nil {
		return nil, nil, fmt.Errorf("session record key: %w", err)
	}
	if o.Sessions, err = openSessions(o); err != nil {
		return nil, nil, err
	}
	if f, err = New(cfg, o.Deps); err != nil {
		o.Sessions.Close()
		return nil, nil, err
	}
	return f, o.Sessions.Close, nil
}

// openSessions is the session store: on Redis when there is one.
func openSessions(o OpenOptions) (SessionStore, error) {
	if o.Redis == nil {
		return NewMemoryStore(o.Now), nil
	}
	rs, err := NewRedisStore(o.Redis.Client, RedisOptions{Prefix: o.Redis.Prefix + "a2e:", Timeout: o.Redis.Timeout, Now: o.Now, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	return rs, nil
}
