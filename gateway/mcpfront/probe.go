package mcpfront

import (
	"context"

	"github.com/capgate/capgate/gateway/discovery"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// What the policy could grant a caller who presents no capability: a
// tools/list lists those tools, and prompts pass only for a caller the
// policy could grant their operation. It is probed as capability
// discovery probes an agent (discovery.Snapshot: every grant of the
// server, without a resource query and then per catalog collection), by
// the policy in force, issuing nothing.

// grantableOps are the operations of the server the policy in force could
// grant the caller, or nil when the front has no policy. A probe that
// fails is refused.
func (f *Front) grantableOps(ctx context.Context, c *call) (map[string]bool, *jsonrpc.Error) {
	if f.deps.Policy == nil {
		return nil, nil
	}
	sc := c.server.cfg
	var collections []string
	for _, r := range sc.Catalog {
		collections = append(collections, r.Collection)
	}
	snap, err := discovery.Snapshot(ctx, discovery.Input{
		Agent: sc.Name, Grants: sc.Grants, Policy: f.deps.Policy.Current(),
		Principal: issue.PolicyPrincipal(c.principal), Now: f.deps.Now(), Collections: collections,
	})
	if err != nil {
		f.deps.Logger.WarnContext(ctx, "policy probe failed", "server", sc.Name, "method", c.req.Method, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "what the policy grants could not be decided",
			Data: map[string]any{"reason": jsonrpc.ReasonInternal}}
	}
	ops := map[string]bool{}
	grants, _ := snap.Custom[discovery.CustomCapabilityGrants].([]discovery.GrantCaps)
	for _, g := range grants {
		for _, op := range g.Operations {
			ops[op] = true
		}
	}
	return ops, nil
}

// grantableTools are the tools of the server whose operation the policy
// could grant the caller, or nil (every tool the config names) when the
// front has no policy.
func (f *Front) grantableTools(ctx context.Context, c *call) (map[string]bool, *jsonrpc.Error) {
	ops, e := f.grantableOps(ctx, c)
	if ops == nil || e != nil {
		return nil, e
	}
	out := map[string]bool{}
	for name, t := range c.server.tools {
		out[name] = ops[t.operation]
	}
	return out, nil
}
