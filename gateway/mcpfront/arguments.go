package mcpfront

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/mcp"
)

// A tool's arguments name resources where the config's pointers say. The
// caller writes a handle of its capability there (or a list of handles);
// the server receives the real id. Nowhere in the arguments may the
// caller write a real id the gateway knows: it names resources only by
// the handles it holds.

// rewriteArguments returns args with the value at each pointer replaced:
// each handle by its real id. A pointer whose value is absent, not a
// handle of the scope's capability, or reached through a member spelled
// otherwise than the pointer's token, is refused. A tool with no
// resource pointers gets its arguments as they came, once checked for
// real ids.
func rewriteArguments(s *enforce.Scope, known *enforce.IDMap, ptrs []mcp.Pointer, args json.RawMessage) (json.RawMessage, *enforce.Refusal) {
	if len(args) == 0 && len(ptrs) == 0 {
		return args, nil
	}
	var doc any
	if len(args) > 0 {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if dec.Decode(&doc) != nil {
			return nil, &enforce.Refusal{Reason: enforce.InvalidParams, Message: "arguments must be JSON"}
		}
	}
	if hasKnownID(known, doc) {
		return nil, &enforce.Refusal{Reason: enforce.ResourceNotPermitted, Message: "resources are named by handle, not by id"}
	}
	if len(ptrs) == 0 {
		return args, nil
	}
	for _, p := range ptrs {
		var r *enforce.Refusal
		if doc, r = replaceAt(s, doc, p, p.Tokens()); r != nil {
			return nil, r
		}
	}
	return encode(doc), nil
}

// replaceAt returns v with the value at tokens (the rest of p) replaced
// by its real ids.
func replaceAt(s *enforce.Scope, v any, p mcp.Pointer, tokens []string) (any, *enforce.Refusal) {
	if len(tokens) == 0 {
		return handlesToIDs(s, v, p)
	}
	tok := tokens[0]
	switch node := v.(type) {
	case map[string]any:
		for k := range node {
			if k != tok && strings.EqualFold(k, tok) {
				return nil, &enforce.Refusal{Reason: enforce.InvalidParams, Message: "argument " + k + " is a case variant of " + tok}
			}
		}
		child, ok := node[tok]
		if !ok {
			return nil, missing(p)
		}
		out, r := replaceAt(s, child, p, tokens[1:])
		node[tok] = out
		return node, r
	case []any:
		i, ok := mcp.Index(tok)
		if !ok || i >= len(node) {
			return nil, missing(p)
		}
		out, r := replaceAt(s, node[i], p, tokens[1:])
		node[i] = out
		return node, r
	}
	return nil, missing(p)
}

// handlesToIDs replaces a handle, or each of a list of handles, by its
// real id.
func handlesToIDs(s *enforce.Scope, v any, p mcp.Pointer) (any, *enforce.Refusal) {
	switch h := v.(type) {
	case string:
		return handleID(s, h, p)
	case []any:
		if len(h) == 0 {
			return nil, missing(p)
		}
		out := make([]any, len(h))
		for i, e := range h {
			str, ok := e.(string)
			if !ok {
				return nil, notAHandle(p)
			}
			id, r := handleID(s, str, p)
			if r != nil {
				return nil, r
			}
			out[i] = id
		}
		return out, nil
	}
	return nil, notAHandle(p)
}

// handleID is the real id behind h, one of the capability's handles.
func handleID(s *enforce.Scope, h string, p mcp.Pointer) (any, *enforce.Refusal) {
	id, ok := s.Resources.ID(h)
	if !ok || id == "" || !s.Claims.HasHandle(h) {
		return nil, &enforce.Refusal{Reason: enforce.ResourceNotPermitted,
			Message: "argument " + p.String() + " is not a handle of the capability", Data: map[string]any{"argument": p.String()}}
	}
	return id, nil
}

func missing(p mcp.Pointer) *enforce.Refusal {
	return &enforce.Refusal{Reason: enforce.ResourceNotPermitted,
		Message: "argument " + p.String() + " must name a resource by a handle of the capability", Data: map[string]any{"argument": p.String()}}
}

func notAHandle(p mcp.Pointer) *enforce.Refusal {
	return &enforce.Refusal{Reason: enforce.ResourceNotPermitted,
		Message: "argument " + p.String() + " must be a handle or a list of handles", Data: map[string]any{"argument": p.String()}}
}

// hasKnownID reports whether a string of v, member names included, holds
// a real id of known (the capability's ids and the server's catalog).
func hasKnownID(known *enforce.IDMap, v any) bool {
	switch node := v.(type) {
	case string:
		return known.In([]byte(node))
	case map[string]any:
		for k, child := range node {
			if known.In([]byte(k)) || hasKnownID(known, child) {
				return true
			}
		}
	case []any:
		for _, child := range node {
			if hasKnownID(known, child) {
				return true
			}
		}
	}
	return false
}
