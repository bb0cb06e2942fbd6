package mcpfront

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// A server's prompts pass per policy when its config says so (prompts:
// {operation}): prompts/list and prompts/get are forwarded only for a
// caller the policy in force could grant that operation on the server
// (probe.go), and refused grant_denied (-32047) for anyone else, before
// the server sees anything. A prompt names no resource by handle, so its
// answer is scoped to no capability; every id of the server's catalog in
// it is redacted (or refuses it, with unmapped_ids: refuse), so a prompt
// never carries a real id to the caller.

// EventPrompt is the audit event of every prompts/list and prompts/get
// decision.
const EventPrompt = "mcp.prompts"

// prompts decides prompts/list and prompts/get.
func (f *Front) prompts(ctx context.Context, c *call) outcome {
	pc := c.server.cfg.Prompts
	if pc == nil {
		return fail(c.req.ID, notServed(c.req.Method))
	}
	if e := noCapabilityIn(c.req); e != nil {
		return fail(c.req.ID, e)
	}
	ops, e := f.grantableOps(ctx, c)
	if e == nil {
		e = noRealID(c, c.req.Params)
	}
	if e == nil && ops != nil && !ops[pc.Operation] {
		e = issue.CapErr(jsonrpc.CodeGrantDenied, "grant denied: the policy grants the caller no "+pc.Operation+
			" on MCP server "+c.server.cfg.Name+", which its prompts need", map[string]any{"operation": pc.Operation})
	}
	outcome := "allowed"
	if e != nil {
		outcome = issue.ReasonOf(e)
	}
	f.deps.Audit.LogAttrs(ctx, slog.LevelInfo, EventPrompt, slog.String("principal", c.principal.ID),
		slog.String("server", c.server.cfg.Name), slog.String("method", c.req.Method), slog.String("outcome", outcome))
	if e != nil {
		return fail(c.req.ID, e)
	}
	c.headersScoped = true
	if c.req.Method == mcp.MethodPromptsGet {
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(c.req.Params, &named)
		c.prompt = named.Name
	}
	return forwardAs(c)
}

// noRealID refuses a message acting under no capability whose text (a
// prompt call's params, a client's response to a server's request) names
// a real id of the server's catalog anywhere: the server would read for
// the caller a resource it holds none for.
func noRealID(c *call, text json.RawMessage) *jsonrpc.Error {
	_, r := rewriteArguments(&enforce.Scope{}, (&enforce.Scope{}).IDMap(c.server.known), nil, text)
	return wireError(r)
}
