package gateway

import (
	"context"
	"fmt"

	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/a2efront"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
)

// Fronts are the protocol fronts the gateway mounts, each turning its
// wire into calls on the same capabilities.
type Fronts struct {
	// A2A is the A2A front, mounted at /a2a/{agent}.
	A2A *a2afront.Front
	// A2E is the A2E front, mounted at /a2e/{host}/; nil when no host is
	// configured.
	A2E *a2efront.Front
	// MCP is the MCP front, mounted at /mcp/{server}; nil when no MCP
	// server is configured.
	MCP *mcpfront.Front
}

// fronts builds the fronts in one place and the same way: the front's
// part of the config, its deps (the runtime, the authenticator and the
// capabilities it uses), then its constructor. Neither performs network
// I/O: agent cards and OIDC discovery are fetched on first use. The A2E
// front's sessions live on the runtime's Redis when it has one, and close
// with the gateway.
func (b *Built) fronts(ctx context.Context, cfg *config.Config, opts BuildOptions, a *authn.Authenticator, caps *Capabilities) (Fronts, error) {
	a2e, closeSessions, err := a2efront.Open(cfg.A2EHosts, a2efront.OpenOptions{
		Deps: a2efront.Deps{Runtime: opts.Runtime, Authenticate: a.AuthenticateToken, AuthenticateRequest: a.AuthenticateRequest,
			Policy: caps.Policy, Shadow: caps.Shadow, Disagreed: opts.Runtime.Metrics.ShadowDisagreement,
			Audit: caps.Audit, Frozen: caps.Frozen},
		Keys: caps.Keys,
	})
	if err != nil {
		return Fronts{}, fmt.Errorf("gateway: a2e: %w", err)
	}
	b.closers = append(b.closers, closeSessions)
	relay, err := b.pushRelay(cfg, opts, caps)
	if err != nil {
		return Fronts{}, err
	}
	a2a, err := a2afront.New(ctx, a2afront.ConfigFrom(cfg), a2afront.Deps{
		Runtime: opts.Runtime, Authenticator: a, Keys: caps.Keys, Verifier: caps.Verifier,
		Index: caps.Index, Revocations: caps.Revocations, Frozen: caps.Frozen, Policy: caps.Policy, Shadow: caps.Shadow, Approvals: caps.Approvals,
		Tasks: caps.Tasks, Audit: caps.Audit, Limits: caps.Limits, Push: relay,
	})
	if err != nil {
		return Fronts{}, fmt.Errorf("gateway: %w", err)
	}
	mcp, err := mcpFront(cfg, opts, a, caps)
	if err != nil {
		return Fronts{}, err
	}
	return Fronts{A2A: a2a, A2E: a2e, MCP: mcp}, nil
}

// mcpFront builds the MCP front, or nil when no MCP server is configured.
func mcpFront(cfg *config.Config, opts BuildOptions, a *authn.Authenticator, caps *Capabilities) (*mcpfront.Front, error) {
	if len(cfg.MCPServers) == 0 {
		return nil, nil
	}
	f, err := mcpfront.New(mcpfront.ConfigFrom(cfg), mcpfront.Deps{
		Authenticator: a, Verifier: caps.Verifier, Index: caps.Index, Revocations: caps.Revocations, Frozen: caps.Frozen,
		Keys: caps.Keys, Policy: caps.Policy, Shadow: caps.Shadow, Limits: caps.Limits, Approvals: caps.Approvals,
		Sessions: caps.Tasks, Audit: caps.Audit, Runtime: opts.Runtime,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: mcp: %w", err)
	}
	return f, nil
}
