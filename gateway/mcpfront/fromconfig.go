package mcpfront

import "github.com/capgate/capgate/gateway/config"

// ConfigFrom is the part of the gateway's config the front serves: the
// MCP servers, the public URL, the body, answer and upstream limits, the
// OIDC issuers the servers' metadata names, and the capability issuer and
// ceiling.
func ConfigFrom(cfg *config.Config) Config {
	issuers := make([]string, 0, len(cfg.OIDC))
	for _, is := range cfg.OIDC {
		issuers = append(issuers, is.Issuer)
	}
	return Config{
		Servers: cfg.MCPServers, PublicURL: cfg.PublicURL, Limits: cfg.Limits.Limits,
		UpstreamTimeout: cfg.Limits.UpstreamTimeout.D(), StreamTimeout: cfg.Listen.StreamTimeout.D(),
		OIDCIssuers: issuers, MaxAnswerBytes: cfg.Limits.MaxAnswerBytes,
		Issuer: cfg.Capabilities.Issuer, MaxTTL: cfg.Capabilities.MaxTTL.D(),
	}
}
