package a2afront

import (
	"context"
	"errors"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// Issuance for agents that have no resources to name, or no way to
// resolve them. A grant marked whole_agent designates the agent as a
// whole: its capabilities carry no handles, so issuing one resolves
// nothing. Any other grant needs the agent's resources, from the
// config's catalog or the agent's a2a/resources/resolve hook; an agent
// with neither gets a documented grant_denied (detail no_resolver), not
// an internal error.

// wholeAgent reports whether grant is one of a's whole-agent grants.
func (a *agent) wholeAgent(grant string) bool {
	for _, g := range a.cfg.Grants {
		if g.ID == grant {
			return g.WholeAgent
		}
	}
	return false
}

// wholeAgentAllowed refuses a whole-agent capability that would be wider
// than what was asked or allowed: a request that named resources, or a
// policy rule that constrains them (a capability naming no resources
// cannot honour a constraint on them).
func wholeAgentAllowed(in policy.Input, gd policy.GrantDecision, rev string) *jsonrpc.Error {
	data := map[string]any{"grant": gd.Grant, "rule": gd.Rule, "policyRevision": rev}
	if q := in.Resource; q != nil && (q.Collection != "" || len(q.Filter) > 0) {
		return capErr(jsonrpc.CodeGrantDenied, "grant denied: "+gd.Grant+" covers the agent as a whole and takes no resourceQuery", data)
	}
	if !gd.Resource.IsZero() || len(gd.Excluded) > 0 {
		return capErr(jsonrpc.CodeGrantDenied, "grant denied: the policy constrains the resources of "+gd.Grant+", which names none", data)
	}
	return nil
}

// resolveFor resolves the request's resources when a granted grant needs
// them; a decision of whole-agent grants only resolves nothing.
func (f *Front) resolveFor(ctx context.Context, c *call, q *policy.ResourceQuery, d policy.Decision) ([]policy.Resource, *jsonrpc.Error) {
	need := false
	for _, gd := range d.Grants {
		need = need || !c.agent.wholeAgent(gd.Grant)
	}
	if !need {
		return nil, nil
	}
	found, err := f.resolve(ctx, c, q)
	switch {
	case errors.Is(err, ErrNoResolver):
		return nil, capErr(jsonrpc.CodeGrantDenied, "grant denied: agent "+c.agent.cfg.Name+
			" cannot resolve resources (it serves no a2a/resources/resolve, and the config gives it no catalog)",
			map[string]any{"detail": "no_resolver"})
	case err != nil:
		f.deps.Logger.WarnContext(ctx, "resource resolution failed", "agent", c.agent.cfg.Name, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternal, Message: "the agent could not resolve the resource query",
			Data: map[string]string{"reason": "resolution_failed"}}
	}
	return found, nil
}
