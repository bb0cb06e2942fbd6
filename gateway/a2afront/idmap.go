package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// Ids never leak (package enforce says how). Here the A2A front applies
// the decision core's id map to every string of an answer (mapIDs), to
// the fields of each SSE event (scopedLine), and to every string of a
// gated send (scopeMessage).

// knownIDs is what the front knows of an agent beyond one capability:
// its catalog's ids and what the config says becomes of one the caller
// holds no handle for.
func knownIDs(ac config.Agent) enforce.Known {
	k := enforce.Known{Placeholder: config.UnmappedPlaceholder, Refuse: ac.UnmappedIDs == config.UnmappedRefuse}
	for _, r := range ac.Catalog {
		if r.ID != "" {
			k.IDs = append(k.IDs, r.ID)
		}
	}
	return k
}

// errUnmappedID refuses an answer carrying a real id the caller holds no
// handle for, on an agent configured to refuse rather than redact.
var errUnmappedID = capErr(jsonrpc.CodeResourceNotPermitted,
	"the agent answered with a resource the capability does not designate", nil)

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
	if !mentionsIDs(resp, c.agent, c.scope) {
		return resp, nil
	}
	return mapAnswer(resp, c.scope.IDMap(c.agent.known))
}

// scopedLine is the SSE line filter of a call scoped to a capability: the
// event, id and retry fields a client keeps (its Last-Event-ID) have their
// ids mapped like the data, a field that would be refused is dropped, and
// comments, which no client acts on, are dropped rather than scanned.
func scopedLine(ids *enforce.IDMap) func([]byte) ([]byte, bool) {
	return func(line []byte) ([]byte, bool) {
		if line[0] == ':' {
			return nil, false
		}
		out, refused := ids.Replace(string(line))
		return []byte(out), !refused
	}
}

// mentionsIDs is mapIDs' fast path, which builds nothing: an answer in
// which none of the ids the map would rewrite appears, neither as written
// nor in any string literal once its escapes are decoded ("a\/b" is
// "a/b"), cannot carry one. resp is valid JSON.
func mentionsIDs(resp json.RawMessage, a *agent, s *enforce.Scope) bool {
	if s.AnyID(a.known, func(id string) bool { return bytes.Contains(resp, []byte(id)) }) {
		return true
	}
	if bytes.IndexByte(resp, '\\') < 0 && utf8.Valid(resp) {
		return false
	}
	return eachLiteral(resp, func(lit []byte) bool {
		if plainLiteral(lit[1 : len(lit)-1]) {
			return false
		}
		str, _ := jsonrpc.Unquote(lit)
		return s.AnyID(a.known, func(id string) bool { return strings.Contains(str, id) })
	})
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
