package mcpfront

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// A server's resources are served when its config says so (resources:
// {operation}), scoped to a capability as tool calls are. A resource's URI
// is its real id, an id of the server's catalog; the caller names it only
// by a handle of its capability. resources/read must present a capability
// covering the operation, and its uri must be one of the capability's
// handles, rewritten to the real URI on the way out; resources/list must
// present one too, and its answer keeps only the capability's resources,
// each URI as the caller's handle. Both answers pass the answer pipeline,
// so no real id of the catalog reaches the caller.

// uriPointer is where resources/read names its resource.
var uriPointer = mustPointer("/uri")

func mustPointer(raw string) mcp.Pointer {
	p, err := mcp.ParsePointer(raw)
	if err != nil {
		panic("mcpfront: " + err.Error())
	}
	return p
}

// resources decides resources/read and resources/list, or refuses them
// on a server whose resources the config does not serve.
func (f *Front) resources(ctx context.Context, c *call) outcome {
	rc := c.server.cfg.Resources
	if rc == nil {
		return fail(c.req.ID, notServed(c.req.Method))
	}
	if c.req.IsNotification() {
		return fail(nil, jsonrpc.NewCodeError(jsonrpc.CodeInvalidRequest, c.req.Method+" must be a request, with an id"))
	}
	m, pc, e := takeCapability(c.req)
	if e != nil {
		return fail(c.req.ID, e)
	}
	if c.req.Method != mcp.MethodResourcesRead {
		return f.actUnder(ctx, c, m, pc, rc.Operation, nil)
	}
	return f.actUnder(ctx, c, m, pc, rc.Operation, func(scope *enforce.Scope, ids *enforce.IDMap) (members, *enforce.Refusal) {
		return rewriteURI(c, scope, ids, m)
	})
}

// rewriteURI replaces the handle in params.uri by its real URI; a real
// id anywhere in the params is refused.
func rewriteURI(c *call, scope *enforce.Scope, ids *enforce.IDMap, m members) (members, *enforce.Refusal) {
	params, r := rewriteArguments(scope, ids, []mcp.Pointer{uriPointer}, encode(m))
	if r != nil {
		return nil, r
	}
	out := members{}
	if json.Unmarshal(params, &out) != nil {
		return nil, &enforce.Refusal{Reason: enforce.InvalidParams, Message: "params must be an object"}
	}
	_ = json.Unmarshal(out["uri"], &c.uri)
	return out, nil
}

// notServed is the refusal of a method the front does not serve.
func notServed(method string) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code: jsonrpc.CodeMethodNotFound, Message: "method not served through capgate: " + method,
		Data: map[string]any{"reason": jsonrpc.ReasonMethodNotFound},
	}
}

// listResources keeps, in a resources/list answer (already mapped to
// handles by mapIDs), the resources whose URI is a handle of the
// capability the listing presented. Anything else in the answer passes.
func (f *Front) listResources(_ context.Context, c *call, resp json.RawMessage) (json.RawMessage, error) {
	if c.req.Method != mcp.MethodResourcesList || c.scope == nil {
		return resp, nil
	}
	return filterList(resp, "resources", func(entry json.RawMessage) bool {
		var named struct {
			URI string `json:"uri"`
		}
		return json.Unmarshal(entry, &named) == nil && slices.Contains(c.scope.Claims.Handles, named.URI)
	})
}

// filterList keeps, in the list under name (in every spelling a lenient
// client reads as it) of a result, the entries keep accepts; what is not
// a list becomes an empty one. An answer with a result that is not an
// object is refused, never passed unfiltered.
func filterList(resp json.RawMessage, name string, keep func(json.RawMessage) bool) (json.RawMessage, error) {
	var env map[string]json.RawMessage
	if json.Unmarshal(resp, &env) != nil || env["result"] == nil {
		return resp, nil
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(env["result"], &result) != nil || result == nil {
		return nil, answer.ErrNotJSON
	}
	for k, v := range result {
		if jsonrpc.LenientName(k, name) {
			var all []json.RawMessage
			_ = json.Unmarshal(v, &all)
			kept := make([]json.RawMessage, 0, len(all))
			for _, e := range all {
				if keep(e) {
					kept = append(kept, e)
				}
			}
			result[k] = encode(kept)
		}
	}
	env["result"] = encode(result)
	return encode(env), nil
}
