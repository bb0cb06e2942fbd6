package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/policy"
)

// Argument names that carry resource handles. The gateway replaces them
// with the real resource ids the upstream acts on.
const (
	argHandle      = "resourceHandle"
	argHandles     = "resourceHandles"
	argResourceID  = "resourceId"
	argResourceIDs = "resourceIds"
)

// skillInvoke is a2a/skill/invoke. It is a chain of small checks, each of
// which may refuse with its own code; a refused call is never forwarded.
// An allowed call is forwarded with its handles rewritten to the real
// resource ids and with the capability context in trusted headers; the
// token itself never goes upstream.
func (g *Gateway) skillInvoke(ctx context.Context, c *call) outcome {
	var p invokeParams
	if err := jsonrpc.UnmarshalParams(c.req.Params, &p); err != nil {
		return fail(c.req.ID, jsonrpc.ErrorFor(err))
	}
	op, ok := c.agent.skills[p.Skill]
	if !ok {
		return fail(c.req.ID, capErr(jsonrpc.CodeInvalidParams, "unknown skill: "+p.Skill, map[string]any{"detail": "unknown_skill"}))
	}
	token := presentedToken(c.http, p.CapabilityToken)
	if p.CapabilityID == "" && token == "" {
		return g.ambient(ctx, c, p)
	}
	claims, _, e := g.usable(ctx, c, p.CapabilityID, token)
	if e == nil {
		e = checkOperation(claims, op)
	}
	var args map[string]json.RawMessage
	if e == nil {
		args, e = g.rewriteHandles(claims, p.Arguments)
	}
	if e != nil {
		g.auditInvoke(ctx, c, p, claims, reasonOf(e))
		return fail(c.req.ID, e)
	}
	g.auditInvoke(ctx, c, p, claims, "allowed")
	body := mustMarshal(forwardedInvoke{
		JSONRPC: "2.0", ID: c.req.ID, Method: c.req.Method,
		Params: forwardedParams{Skill: p.Skill, Arguments: args, CapabilityID: claims.CapabilityID},
	})
	return outcome{forward: body, cc: &proxy.Context{
		CapabilityID: claims.CapabilityID, Principal: claims.Principal,
		Holder: claims.Holder, Operations: claims.Operations,
	}}
}

// forwardedInvoke is the invocation as the upstream receives it: handles
// rewritten to real ids, the capability named by id, no token.
type forwardedInvoke struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  forwardedParams `json:"params"`
}

type forwardedParams struct {
	Skill        string                     `json:"skill"`
	Arguments    map[string]json.RawMessage `json:"arguments"`
	CapabilityID string                     `json:"capabilityId"`
}

// presentedToken is the token the caller sent with the call, in params or
// in the A2A-Capability header. Both are refused when they disagree.
func presentedToken(r *http.Request, fromParams string) string {
	h := strings.TrimSpace(r.Header.Get(proxy.HeaderCapabilityToken))
	switch {
	case fromParams == "":
		return h
	case h != "" && h != fromParams:
		return "\x00conflicting tokens"
	}
	return fromParams
}

func checkOperation(c *captoken.Claims, op string) *jsonrpc.Error {
	if !c.HasOperation(op) {
		return capErr(jsonrpc.CodeOperationNotPermitted, "operation "+op+" is not in the capability",
			map[string]any{"operation": op, "allowed": c.Operations})
	}
	return nil
}

// rewriteHandles replaces resourceHandle (and resourceHandles) with the
// real ids the capability designates. Every handle must be one of the
// capability's. Real ids from the caller are refused: the caller only ever
// names resources by handle. A call naming no handle is scoped to all of
// the capability's resources through resourceIds.
func (g *Gateway) rewriteHandles(c *captoken.Claims, in map[string]json.RawMessage) (map[string]json.RawMessage, *jsonrpc.Error) {
	out := make(map[string]json.RawMessage, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	if e := checkArgumentNames(in); e != nil {
		return nil, e
	}
	resources, err := g.unsealed.open(g.caps.Verifier, c)
	if err != nil {
		return nil, capErr(jsonrpc.CodeCapabilityInvalid, "capability invalid", nil)
	}
	if raw, ok := in[argHandle]; ok {
		var h string
		if json.Unmarshal(raw, &h) != nil || !c.HasHandle(h) || resources[h] == "" {
			return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resource handle is not in the capability", nil)
		}
		delete(out, argHandle)
		out[argResourceID] = mustMarshal(resources[h])
		return out, nil
	}
	ids := make([]string, 0, len(c.Handles))
	if raw, ok := in[argHandles]; ok {
		var hs []string
		if json.Unmarshal(raw, &hs) != nil || len(hs) == 0 {
			return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resourceHandles must list handles of the capability", nil)
		}
		for _, h := range hs {
			if !c.HasHandle(h) || resources[h] == "" {
				return nil, capErr(jsonrpc.CodeResourceNotPermitted, "resource handle is not in the capability", nil)
			}
			ids = append(ids, resources[h])
		}
		delete(out, argHandles)
	} else {
		for _, h := range c.Handles {
			ids = append(ids, resources[h])
		}
	}
	out[argResourceIDs] = mustMarshal(ids)
	return out, nil
}

// checkArgumentNames refuses real resource ids from the caller, and any
// argument whose name is a case variant of a resource argument: an agent
// decoding with encoding/json would read "ResourceId" as resourceId, which
// would let a caller name a resource the capability does not designate.
func checkArgumentNames(in map[string]json.RawMessage) *jsonrpc.Error {
	if _, ok := in[argResourceID]; ok {
		return capErr(jsonrpc.CodeResourceNotPermitted, "resources are named by handle, not by id", nil)
	}
	if _, ok := in[argResourceIDs]; ok {
		return capErr(jsonrpc.CodeResourceNotPermitted, "resources are named by handle, not by id", nil)
	}
	return refuseCaseVariants(in, "argument", argHandle, argHandles, argResourceID, argResourceIDs)
}

// refuseCaseVariants refuses a member whose name differs from one of the
// reserved names only in case. The gateway decides on exact names, but an
// agent decoding with encoding/json matches names case-insensitively and
// would act on the variant as if it were the real member.
func refuseCaseVariants(members map[string]json.RawMessage, what string, reserved ...string) *jsonrpc.Error {
	for k := range members {
		for _, name := range reserved {
			if k != name && strings.EqualFold(k, name) {
				return capErr(jsonrpc.CodeInvalidParams, what+" "+k+" is a case variant of "+name, nil)
			}
		}
	}
	return nil
}

// ambient handles an invocation that names no capability. Only an agent
// configured as legacy accepts one, and only where the policy explicitly
// allows this principal, agent and skill; everything else is
// capability_required.
func (g *Gateway) ambient(ctx context.Context, c *call, p invokeParams) outcome {
	required := fail(c.req.ID, capErr(jsonrpc.CodeCapabilityRequired, "this call must name a capability (capabilityId)", nil))
	if !c.agent.cfg.Legacy {
		g.auditInvoke(ctx, c, p, nil, jsonrpc.ReasonCapabilityRequired)
		return required
	}
	d := g.caps.Policy.Current().DecideAmbient(ctx, policy.AmbientInput{
		Principal: toPolicyPrincipal(c.principal), Agent: c.agent.cfg.Name,
		Skill: p.Skill, Method: c.canonical, Now: g.now(),
	})
	if !d.Allow {
		g.auditInvoke(ctx, c, p, nil, jsonrpc.ReasonCapabilityRequired)
		return required
	}
	g.auditInvoke(ctx, c, p, nil, "allowed_ambient")
	return outcome{forward: c.req.Raw, cc: callerContext(c)}
}
