package a2afront

import (
	"context"
	"errors"

	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/policy"
)

// capabilitiesRequest is a2a/capabilities/request, answered by the
// gateway's issuer (package issue): what the grant permits ∩ what the
// caller asked for ∩ what the principal's policy allows, one capability
// per grant, with opaque handles for the resources the query resolves to
// within policy, or a request held for human approval. The agent is the
// target; its resources come from its catalog or its resolution hook.
func (f *Front) capabilitiesRequest(ctx context.Context, c *call) outcome {
	p, err := requestParams(c.req)
	if err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	res, e := f.issuer().Request(ctx, c.principal, agentTarget{f: f, c: c}, p)
	if e != nil {
		return fail(c.req.ID, e)
	}
	return answered(jsonrpc.NewResult(c.req.ID, res))
}

// issuer is the gateway's issuer over the front's current stores.
func (f *Front) issuer() *issue.Issuer {
	return issue.New(issue.Config{Issuer: f.cfg.Issuer, MaxTTL: f.cfg.MaxTTL}, issue.Deps{
		Keys: f.deps.Keys, Verifier: f.deps.Verifier, Index: f.deps.Index, Revocations: f.deps.Revocations,
		Policy: f.deps.Policy, Limits: f.deps.Limits, Approvals: f.deps.Approvals,
		Shadow: f.deps.Shadow, Disagreed: f.deps.Metrics.ShadowDisagreement,
		Checks: f.checks, Audit: f.audit, Logger: f.deps.Logger, Now: f.deps.Now,
	})
}

// agentTarget is the agent a call is addressed to, as the issuer sees a
// target: its grants, and its resources from the config's catalog or the
// agent's a2a/resources/resolve hook. A whole_agent grant names no
// resources and resolves nothing; an agent with neither a catalog nor the
// hook is refused with detail no_resolver.
type agentTarget struct {
	f *Front
	c *call
}

// Name implements issue.Target.
func (t agentTarget) Name() string { return t.c.agent.cfg.Name }

// Grant implements issue.Target.
func (t agentTarget) Grant(id string) (policy.Grant, bool) {
	for _, g := range t.c.agent.cfg.Grants {
		if g.ID == id {
			return g, true
		}
	}
	return policy.Grant{}, false
}

// Resolve implements issue.Target.
func (t agentTarget) Resolve(ctx context.Context, q *policy.ResourceQuery) ([]policy.Resource, error) {
	found, err := t.f.resolve(ctx, t.c, q)
	if errors.Is(err, ErrNoResolver) {
		return nil, issue.NoResolver("agent " + t.c.agent.cfg.Name +
			" cannot resolve resources (it serves no a2a/resources/resolve, and the config gives it no catalog)")
	}
	return found, err
}
