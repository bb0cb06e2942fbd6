package a2afront

import (
	"context"
	"encoding/json"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
)

// skillInvoke is a2a/skill/invoke. It is a chain of small checks, each of
// which may refuse with its own code; a refused call is never forwarded.
// An allowed call is forwarded with its handles rewritten to the real
// resource ids and with the capability context in trusted headers; the
// token itself never goes upstream.
func (f *Front) skillInvoke(ctx context.Context, c *call) outcome {
	p, plain, err := invokeParams(c.req)
	if err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	op, ok := c.agent.cfg.Skills[p.Skill]
	if !ok {
		return fail(c.req.ID, invalidMember("params.skill", "unknown skill: "+p.Skill, map[string]any{"detail": "unknown_skill"}))
	}
	if e := f.limit(ctx, c, ratelimit.Invoke, 1); e != nil {
		f.auditInvoke(ctx, c, p, nil, reasonOf(e))
		return fail(c.req.ID, e)
	}
	token, e := invocationCapability(c, &p, plain)
	if e == nil && p.CapabilityID == "" && token == "" {
		return f.ambient(ctx, c, p)
	}
	var claims *captoken.Claims
	if e == nil {
		claims, e = f.scopeTo(ctx, c, enforce.Request{
			Audience: c.agent.cfg.Name, CapabilityID: p.CapabilityID, Token: token, Operation: op,
		})
	}
	var args map[string]json.RawMessage
	if e == nil {
		var r *enforce.Refusal
		args, r = c.scope.RewriteArguments(p.Arguments)
		e = wireError(r)
	}
	if e != nil {
		f.auditInvoke(ctx, c, p, claims, reasonOf(e))
		return fail(c.req.ID, e)
	}
	f.auditInvoke(ctx, c, p, claims, "allowed")
	body := appendInvokeRequest(make([]byte, 0, len(c.req.Raw)+64), c.req.ID, c.req.Method, forwardedParams{
		Skill: p.Skill, Arguments: args, CapabilityID: claims.CapabilityID,
	})
	return outcome{forward: body, cc: &proxy.Context{
		CapabilityID: claims.CapabilityID, Principal: claims.Principal,
		Holder: claims.Holder, Operations: claims.Operations,
	}}
}

// forwardedParams are the invocation's params as the upstream receives
// them: handles rewritten to real ids, the capability named by id, no
// token.
type forwardedParams struct {
	Skill        string                     `json:"skill"`
	Arguments    map[string]json.RawMessage `json:"arguments"`
	CapabilityID string                     `json:"capabilityId"`
}

// ambient handles an invocation that names no capability. Only an agent
// configured as legacy accepts one, and only where the policy explicitly
// allows this principal, agent and skill; everything else is
// capability_required.
func (f *Front) ambient(ctx context.Context, c *call, p sep.InvokeParams) outcome {
	required := fail(c.req.ID, capErr(jsonrpc.CodeCapabilityRequired, "this call must name a capability (capabilityId)", nil))
	if !c.agent.cfg.Legacy {
		f.auditInvoke(ctx, c, p, nil, jsonrpc.ReasonCapabilityRequired)
		return required
	}
	in := policy.AmbientInput{
		Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name,
		Skill: p.Skill, Method: c.canonical, Now: f.deps.Now(),
	}
	d := f.deps.Policy.Current().DecideAmbient(ctx, in)
	f.shadowAmbient(ctx, in, d)
	if !d.Allow {
		f.auditInvoke(ctx, c, p, nil, jsonrpc.ReasonCapabilityRequired)
		return required
	}
	f.auditInvoke(ctx, c, p, nil, "allowed_ambient")
	return forwardAs(c)
}

// encodeRequest builds the JSON-RPC request the gateway forwards in place
// of the caller's, after rewriting its params.
func encodeRequest(id json.RawMessage, method string, params any) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params"`
	}{"2.0", id, method, params})
	if err != nil {
		panic("a2a front: a request the gateway rebuilt does not encode: " + err.Error())
	}
	return b
}

// shadowAmbient decides an ambient call under the shadow policy, when one
// is configured, and records a disagreement (audit and metric). Nothing
// it decides is enforced.
func (f *Front) shadowAmbient(ctx context.Context, in policy.AmbientInput, enforced policy.Decision) {
	if f.deps.Shadow == nil || f.deps.Shadow.Current() == nil {
		return
	}
	cand := f.deps.Shadow.Current().DecideAmbient(ctx, in)
	side := func(d policy.Decision) issue.Shadowed {
		return issue.Shadowed{Revision: d.Revision, Allow: d.Allow, Rules: issue.RuleIDs(d.Matched)}
	}
	if issue.Disagreement(ctx, f.audit, "ambient", in.Principal.ID, in.Agent, []string{in.Skill}, side(enforced), side(cand)) {
		f.deps.Metrics.ShadowDisagreement()
	}
}
