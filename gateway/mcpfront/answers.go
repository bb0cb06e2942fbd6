package mcpfront

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/mcp"
)

// Every answer of a forwarded call comes back through the server's proxy,
// whose response hook runs it through the answer pipeline (package
// answer) before the caller sees a byte of it: a unary answer whole, a
// stream event by event. The processors, in order: mapIDs (a tools/call's
// real ids become the caller's handles, in every string, server requests
// and notifications on the stream included) and listTools (a tools/list
// shows only the tools the caller could call) and listResources (a
// resources/list shows only the capability's resources). Before each
// event of a stream the call's freeze is checked again (haltFrozen), so a
// freeze ends a stream opened before it.

// modifyAnswer is the servers' proxy hook.
func (f *Front) modifyAnswer(resp *http.Response) error {
	u, ok := outboundFrom(resp.Request.Context())
	if !ok {
		return nil
	}
	c := u.c
	if err := f.bindSession(resp.Request.Context(), resp, c); err != nil {
		f.deps.Logger.ErrorContext(resp.Request.Context(), "mcp session not bound", "server", c.server.cfg.Name, "error", err)
		return err
	}
	c.stream = strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "event-stream")
	// A call under a capability keeps only the answer headers a caller
	// needs (an unscoped one keeps the rest, its Mcp-Session-Id with them).
	scoped := c.scope != nil || c.headersScoped
	if c.ids == nil {
		// No capability: every catalog id in the answer is redacted (a
		// tool's description, initialize's instructions, a prompt).
		c.ids = (&enforce.Scope{}).IDMap(c.server.known)
	}
	ac := answer.Call[*call]{Value: c, ID: c.req.ID, Target: c.server.cfg.Name, Scoped: scoped, Halt: f.haltFrozen(c)}
	if ids := c.ids; ids != nil {
		ac.Lines = func() answer.LineFilter { return answer.Lines(ids) }
	}
	return f.answers.Modify(resp, ac)
}

// mapIDs is the id rule of a tools/call's answer (and of every call
// scoped to a capability); a prompt's answer has every catalog id
// redacted. On a stream, each event
// first re-checks that the capability is live, so a revocation ends the
// stream at its next event.
func (f *Front) mapIDs(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.ids == nil {
		return resp, nil
	}
	if c.stream && c.scope != nil {
		if r := f.checks.Live(ctx, c.scope.Claims); r != nil {
			return nil, wireError(r)
		}
	}
	return answer.MapIDsWith(ctx, resp, c.ids)
}

// listTools keeps, in a tools/list answer, the tools the caller could
// call (callable). Anything else in the answer passes as it came.
func (f *Front) listTools(_ context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.req.Method != mcp.MethodToolsList {
		return resp, nil
	}
	return filterList(resp, "tools", func(t json.RawMessage) bool { return f.callable(c, t) })
}

// callable reports whether the tool t of a tools/list answer is one the
// caller could call: one the config names and, under the capability the
// listing presented, whose operation it covers, or, without one, that
// the policy could grant the caller.
func (f *Front) callable(c *call, t json.RawMessage) bool {
	var named struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(t, &named) != nil {
		return false
	}
	tc, ok := c.server.tools[named.Name]
	if !ok {
		return false
	}
	switch {
	case c.listed != nil:
		return c.listed.Claims.HasOperation(tc.operation)
	case c.grantable != nil:
		return c.grantable[named.Name]
	}
	return true
}
