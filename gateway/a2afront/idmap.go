package a2afront

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Ids never leak (package enforce says how). Here the A2A front applies
// the decision core's id map to every answer of a scoped call (mapIDs,
// through the answer pipeline's MapIDs and Lines), and to every string of
// a gated send (scopeMessage).

// knownIDs is what the front knows of an agent beyond one capability:
// its catalog's ids and what the config says becomes of one the caller
// holds no handle for, compiled once when the agent is set up.
func knownIDs(ac config.Agent) *enforce.Catalog {
	k := enforce.Known{Placeholder: config.UnmappedPlaceholder, Refuse: ac.UnmappedIDs == config.UnmappedRefuse}
	for _, r := range ac.Catalog {
		if r.ID != "" {
			k.IDs = append(k.IDs, r.ID)
		}
	}
	return enforce.NewCatalog(k)
}

// mapIDs is the answer processor of the id rule. Answers to calls not
// scoped to a capability pass untouched. On a stream, every event first
// re-checks that the capability is live, so a revocation ends the stream
// at its next event.
func (f *Front) mapIDs(ctx context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.scope == nil {
		return resp, nil
	}
	if jsonrpc.IsStreaming(c.req.Method) {
		if r := f.checks.Live(ctx, c.scope.Claims); r != nil {
			return nil, wireError(r)
		}
	}
	return answer.MapIDs(ctx, resp, c.scope, c.agent.known)
}

// scopeMessage rewrites, in everything a gated send carries, each handle
// of the capability to its real id. A handle-shaped word that is not one
// of the capability's handles, or a real id the gateway knows, is refused:
// the caller names resources only by the handles it holds.
func scopeMessage(c *call, params map[string]json.RawMessage) *jsonrpc.Error {
	known := c.scope.IDMap(c.agent.known)
	for k, raw := range params {
		out, err := mapStrings(raw, func(s string) (string, error) {
			out, r := c.scope.Inbound(known, s)
			if r != nil {
				return "", r
			}
			return out, nil
		})
		if r, ok := errors.AsType[*enforce.Refusal](err); ok {
			return wireError(r)
		}
		if err != nil {
			return capErr(jsonrpc.CodeInvalidParams, "params are not valid JSON", nil)
		}
		params[k] = out
	}
	return nil
}
