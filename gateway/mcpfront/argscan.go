package mcpfront

import (
	"bytes"
	"encoding/json"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// Decoding every tool call's arguments into a tree, walking it for real
// ids and encoding it again was the next largest cost of the front's
// decision. Almost every call names its resources in members of the
// arguments object itself, each a handle, so such a call is checked and
// rewritten by a scan of its bytes instead; anything else, and every
// refusal, takes the decoding path (rewriteArguments), which words it.

// scanArguments is rewriteArguments of args when they have the plain
// shape: an object of plain member names; pointers of one token each, no
// two the same; the value at each a string literal without escapes, one
// of the capability's handles; no string literal of args, names included,
// with an escape or holding a real id known. It returns the arguments with
// each handle replaced by its real id, the other members' bytes as they
// came, or ok false for anything else, which includes every refusal. A
// fuzz target compares it with rewriteArguments.
func scanArguments(s *enforce.Scope, known *enforce.IDMap, ptrs []mcp.Pointer, args []byte) (out []byte, ok bool) {
	if len(args) == 0 || args[0] != '{' || !plainTokens(ptrs) || !noKnownLiteral(known, args) {
		return nil, false
	}
	if len(ptrs) == 0 {
		return args, true
	}
	found := 0
	out = append(make([]byte, 0, len(args)+64), '{')
	ok = eachPlain(args, func(k, v []byte) bool {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), k...), '"', ':')
		for _, p := range ptrs {
			tok := p.Tokens()[0]
			if !exactOrUnlike(k, tok) {
				return false
			}
			if string(k) != tok {
				continue
			}
			h, plain := plainLiteral(v)
			if !plain {
				return false
			}
			id, r := handleID(s, h, p)
			if r != nil {
				return false
			}
			found++
			out = jsonrpc.AppendString(out, id.(string))
			return true
		}
		out = append(out, v...)
		return true
	})
	if !ok || found != len(ptrs) {
		return nil, false
	}
	return append(out, '}'), true
}

// plainTokens reports whether every pointer has one token, none twice.
func plainTokens(ptrs []mcp.Pointer) bool {
	for i, p := range ptrs {
		if len(p.Tokens()) != 1 {
			return false
		}
		for _, q := range ptrs[:i] {
			if q.Tokens()[0] == p.Tokens()[0] {
				return false
			}
		}
	}
	return true
}

// noKnownLiteral reports whether no string literal of text has an escape
// sequence or holds a real id of known.
func noKnownLiteral(known *enforce.IDMap, text []byte) bool {
	w := jsonrpc.WalkStrings(text)
	for start, end, ok := w.Next(); ok; start, end, ok = w.Next() {
		inner := text[start+1 : end-1]
		if bytes.IndexByte(inner, '\\') >= 0 || known.In(inner) {
			return false
		}
	}
	return true
}

// checkedArguments is rewriteArguments, by scanArguments where it can.
func checkedArguments(s *enforce.Scope, known *enforce.IDMap, ptrs []mcp.Pointer, args json.RawMessage) (json.RawMessage, *enforce.Refusal) {
	if out, ok := scanArguments(s, known, ptrs, args); ok {
		return out, nil
	}
	return rewriteArguments(s, known, ptrs, args)
}
