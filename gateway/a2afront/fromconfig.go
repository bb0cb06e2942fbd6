package a2afront

import "github.com/capgate/capgate/gateway/config"

// ConfigFrom is the part of the gateway's config the front serves: the
// agents, the public URL, the capability issuer and ceiling, the body and
// upstream limits, the task index bounds, and the OIDC issuers that served
// cards declare.
func ConfigFrom(cfg *config.Config) Config {
	issuers := make([]string, 0, len(cfg.OIDC))
	for _, is := range cfg.OIDC {
		issuers = append(issuers, is.Issuer)
	}
	return Config{
		Agents: cfg.Agents, PublicURL: cfg.PublicURL,
		Issuer: cfg.Capabilities.Issuer, MaxTTL: cfg.Capabilities.MaxTTL.D(),
		Limits:          cfg.Limits.Limits,
		UpstreamTimeout: cfg.Limits.UpstreamTimeout.D(), StreamTimeout: cfg.Listen.StreamTimeout.D(),
		OIDCIssuers: issuers,
		MaxTasks:    cfg.Limits.MaxTasks, TaskTTL: cfg.Limits.TaskTTL.D(),
	}
}
