package gateway

import (
	"fmt"
	"log/slog"

	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
)

// a2eFront builds the A2E front for the configured hosts: sessions in Redis
// when replicas share one, in memory otherwise. Each host's own secret
// comes from the environment and replaces the caller's auth_token.
func (b *Built) a2eFront(cfg *config.Config, opts BuildOptions, a *authn.Authenticator, caps *Capabilities) (*a2efront.Front, error) {
	if len(cfg.A2EHosts) == 0 {
		return nil, nil
	}
	hosts := make([]a2efront.Host, 0, len(cfg.A2EHosts))
	for _, h := range cfg.A2EHosts {
		token := ""
		if h.AuthTokenEnv != "" {
			if opts.Getenv == nil || opts.Getenv(h.AuthTokenEnv) == "" {
				return nil, fmt.Errorf("gateway: a2e host %s: environment variable %s is empty", h.Name, h.AuthTokenEnv)
			}
			token = opts.Getenv(h.AuthTokenEnv)
		}
		hosts = append(hosts, a2efront.Host{Name: h.Name, URL: h.URL, AuthToken: token, Capabilities: h.Capabilities, RequireCredentials: h.RequireCredentials})
	}
	var sessions a2efront.SessionStore = a2efront.NewMemoryStore(opts.Now)
	if b.redis != nil {
		rs, err := a2efront.NewRedisStore(b.redis, a2efront.RedisOptions{
			Prefix: cfg.Redis.Prefix + "a2e:", Timeout: cfg.Redis.Timeout.D(), Now: opts.Now, Logger: opts.Logger,
		})
		if err != nil {
			return nil, fmt.Errorf("gateway: a2e sessions: %w", err)
		}
		sessions = rs
	}
	b.closers = append(b.closers, sessions.Close)
	recordKey, err := caps.Keys.DeriveKey(a2efront.RecordKeyInfo)
	if err != nil {
		return nil, fmt.Errorf("gateway: a2e session record key: %w", err)
	}
	f, err := a2efront.New(a2efront.Config{Hosts: hosts}, a2efront.Deps{
		Authenticate: a.AuthenticateToken, AuthenticateRequest: a.AuthenticateRequest, Policy: caps.Policy, Sessions: sessions,
		Now: opts.Now, Logger: opts.Logger, Audit: auditOrDiscard(caps.Audit), RecordKey: recordKey,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: a2e: %w", err)
	}
	return f, nil
}

func auditOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
