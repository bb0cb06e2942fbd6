package mcpfront

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/proxy"
)

// Audit events of the decisions on a capability: "mcp." and the method,
// its slashes as dots.
const (
	EventToolCall      = "mcp.tools.call"
	EventResourcesRead = "mcp.resources.read"
	EventResourcesList = "mcp.resources.list"
)

// toolsCall decides a tools/call, in order: the tool is one the config
// names; the capability presented is found, verified, held by the
// caller, live and for this server, and covers the tool's operation;
// every resource argument is one of its handles. Only then is the call
// forwarded, its handles rewritten to real ids and the capability taken
// out of its _meta; its answer is mapped back to handles.
func (f *Front) toolsCall(ctx context.Context, c *call) outcome {
	if c.req.IsNotification() {
		return fail(nil, jsonrpc.NewCodeError(jsonrpc.CodeInvalidRequest, "tools/call must be a request, with an id"))
	}
	m, pc, e := takeCapability(c.req)
	if e != nil {
		return fail(c.req.ID, e)
	}
	var name string
	if json.Unmarshal(m["name"], &name) != nil || name == "" {
		return fail(c.req.ID, invalidParams("params.name must name the tool"))
	}
	t, ok := c.server.tools[name]
	if !ok {
		return fail(c.req.ID, invalidParams("tool "+name+" is not served through capgate"))
	}
	c.tool = name
	return f.actUnder(ctx, c, m, pc, t.operation, func(scope *enforce.Scope, ids *enforce.IDMap) (members, *enforce.Refusal) {
		args, r := checkedArguments(scope, ids, t.resources, m["arguments"])
		if r == nil && args != nil {
			m["arguments"] = args
		}
		return m, r
	})
}

// actUnder decides a call that acts through the capability it presents
// (pc): found, verified, held by the caller, live, for this server and
// covering operation; then rewrite turns the handles the params m name
// into real ids (nil rewrites nothing), over the rewrites of the scope,
// built once for the call and its answer. Only then is the call forwarded,
// with the params rewrite returned, under the capability's scope, so its
// answer is mapped back to handles. The decision is audited either way.
func (f *Front) actUnder(ctx context.Context, c *call, m members, pc mcp.PresentedCapability, operation string,
	rewrite func(*enforce.Scope, *enforce.IDMap) (members, *enforce.Refusal)) outcome {
	id, token, e := presented(c.http, pc)
	if e != nil {
		return fail(c.req.ID, e)
	}
	var claims *captoken.Claims
	var scope *enforce.Scope
	r := noCapability(id, token)
	if r == nil {
		claims, scope, r = f.checks.Decide(ctx, enforce.Request{
			Holder: c.principal.ID, Audience: c.server.cfg.Name, CapabilityID: id, Token: token, Operation: operation,
		})
	}
	var ids *enforce.IDMap
	if r == nil {
		ids = scope.IDMap(c.server.known)
	}
	if r == nil && rewrite != nil {
		m, r = rewrite(scope, ids)
	}
	f.auditCall(ctx, c, id, claims, r)
	if r != nil {
		return fail(c.req.ID, wireError(r))
	}
	c.scope, c.ids = scope, ids
	return outcome{forward: encodeRequest(c.req, m), vouched: vouchedFor(claims)}
}

// toolsList forwards a tools/list. With a capability presented, the
// capability must be usable by the caller for this server, and the
// answer lists only the tools whose operation it covers; without one, it
// lists the tools the policy in force could ever grant the caller
// (grantableTools). A tool the config does not name is never listed: it
// could never be called through the gateway.
func (f *Front) toolsList(ctx context.Context, c *call) outcome {
	m, pc, e := takeCapability(c.req)
	if e != nil {
		return fail(c.req.ID, e)
	}
	id, token, e := presented(c.http, pc)
	if e != nil {
		return fail(c.req.ID, e)
	}
	if id == "" && token == "" {
		if c.grantable, e = f.grantableTools(ctx, c); e != nil {
			return fail(c.req.ID, e)
		}
		return forwardAs(c)
	}
	claims, scope, r := f.checks.Decide(ctx, enforce.Request{
		Holder: c.principal.ID, Audience: c.server.cfg.Name, CapabilityID: id, Token: token,
	})
	if r != nil {
		return fail(c.req.ID, wireError(r))
	}
	c.listed = scope
	return outcome{forward: encodeRequest(c.req, m), vouched: vouchedFor(claims)}
}

// msgCapabilityRequired is the -32040 refusal of a call that presents no
// capability, naming where an MCP client puts one.
const msgCapabilityRequired = "this call must present a capability: params._meta[\"" + mcp.MetaCapability +
	"\"] holding {capabilityId} or {capabilityToken}, or a token in the A2A-Capability header"

// noCapability is capability_required, in the MCP front's words, when a
// call presents no capability at all; nil otherwise.
func noCapability(id, token string) *enforce.Refusal {
	if id != "" || token != "" {
		return nil
	}
	return &enforce.Refusal{Reason: enforce.CapabilityRequired, Message: msgCapabilityRequired}
}

// vouchedFor is the capability context the gateway vouches for on a call
// allowed under claims.
func vouchedFor(claims *captoken.Claims) *proxy.Context {
	return &proxy.Context{CapabilityID: claims.CapabilityID, Principal: claims.Principal,
		Holder: claims.Holder, Operations: claims.Operations}
}

// encodeRequest is req with its params replaced by m, members in the
// order of their names. Every value of m is checked JSON (the caller's,
// as Decode read it, or the front's own encoding), and is written as it
// is.
func encodeRequest(req jsonrpc.Request, m members) []byte {
	keys := slices.Sorted(maps.Keys(m))
	n := 48 + len(req.ID) + len(req.Method)
	for k, v := range m {
		n += len(k) + len(v) + 4
	}
	out := append(make([]byte, 0, n), `{"jsonrpc":"`+jsonrpc.Version+`"`...)
	if len(req.ID) > 0 {
		out = append(append(out, `,"id":`...), req.ID...)
	}
	out = append(jsonrpc.AppendString(append(out, `,"method":`...), req.Method), `,"params":{`...)
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(jsonrpc.AppendString(out, k), ':'), m[k]...)
	}
	return append(out, '}', '}')
}

// auditCall records one tools/call decision: who, which server and tool,
// the capability id presented, the capability it was decided under with
// its place in the chain, and the reason of a refusal.
func (f *Front) auditCall(ctx context.Context, c *call, requested string, claims *captoken.Claims, r *enforce.Refusal) {
	attrs := []slog.Attr{
		slog.String("principal", c.principal.ID), slog.String("server", c.server.cfg.Name),
		slog.String("tool", c.tool), slog.String("method", c.req.Method),
		slog.String("requested_capability_id", requested),
	}
	if claims != nil {
		// The chain the call acted under: its capability, the parent it
		// was attenuated or delegated from, whom it acts for and how deep.
		attrs = append(attrs, slog.String("capability_id", claims.CapabilityID),
			slog.String("parent_id", claims.ParentCapabilityID), slog.String("on_behalf_of", claims.Principal),
			slog.String("holder", claims.Holder), slog.Int("depth", claims.Depth), slog.String("grant", claims.Grant))
	}
	outcome, level := "allowed", slog.LevelInfo
	if r != nil {
		outcome, level = string(r.Reason), slog.LevelWarn
	}
	attrs = append(attrs, slog.String("outcome", outcome))
	f.deps.Audit.LogAttrs(ctx, level, "mcp."+strings.ReplaceAll(c.req.Method, "/", "."), attrs...)
}
