package mcpfront

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
)

// The params of every tools/call are read to take the capability out of
// their _meta, and decoding them through encoding/json (the params, then
// _meta, then the capability, each checked again and copied) was the
// largest cost of the front's own decision. Almost every call has the same
// plain shape, so it is read by a scan of the bytes Decode checked instead,
// and anything else takes decodeCapability, which also words every
// refusal.

// scanCapability is decodeCapability of params that Decode checked (valid
// JSON and UTF-8, no duplicate or case-variant names) when they have the
// plain shape: an object whose names are plain ASCII, none a case variant
// of _meta, name or arguments but those; a _meta, if any, of plain names
// of which the only one that folds to the capability's key is that key;
// and a capability of plain string members capabilityId and
// capabilityToken alone. It returns what decodeCapability returns for the
// same bytes (a fuzz target compares the two), with the values sharing
// params' bytes, or ok false for anything else, which includes every
// refusal.
func scanCapability(params []byte) (m members, pc mcp.PresentedCapability, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return nil, pc, false
	}
	m = members{}
	var meta []byte
	ok = eachPlain(params, func(k, v []byte) bool {
		if !exactOrUnlike(k, "_meta", "name", "arguments") {
			return false
		}
		if string(k) == "_meta" {
			meta = v
		}
		m[string(k)] = v
		return true
	})
	if !ok {
		return nil, pc, false
	}
	if meta == nil {
		return m, pc, true
	}
	if meta[0] != '{' {
		return nil, pc, false
	}
	var capRaw []byte
	others := 0
	ok = eachPlain(meta, func(k, v []byte) bool {
		switch {
		case string(k) == mcp.MetaCapability:
			capRaw = v
		case strings.EqualFold(string(k), mcp.MetaCapability):
			return false
		default:
			others++
		}
		return true
	})
	if !ok || capRaw == nil {
		// No capability: the params are forwarded as they came.
		return m, pc, ok
	}
	if pc, ok = scanPresented(capRaw); !ok {
		return nil, pc, false
	}
	if others == 0 {
		delete(m, "_meta")
	} else {
		m["_meta"] = withoutMember(meta, mcp.MetaCapability)
	}
	return m, pc, true
}

// scanPresented reads {capabilityId, capabilityToken} of plain strings.
func scanPresented(v []byte) (pc mcp.PresentedCapability, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return pc, false
	}
	ok = eachPlain(v, func(k, s []byte) bool {
		str, plain := plainLiteral(s)
		switch {
		case !plain:
			return false
		case string(k) == "capabilityId":
			pc.CapabilityID = str
		case string(k) == "capabilityToken":
			pc.CapabilityToken = str
		default:
			return false
		}
		return true
	})
	return pc, ok
}

// eachPlain calls fn with the name and value of every member of obj, and
// reports whether every name was plain ASCII and fn accepted it.
func eachPlain(obj []byte, fn func(k, v []byte) bool) bool {
	it, isObject := jsonrpc.WalkObject(obj)
	if !isObject {
		return false
	}
	for mem, more := it.Next(); more; mem, more = it.Next() {
		if mem.Escaped || !jsonrpc.PlainName(mem.Name) || !fn(mem.Name, mem.Value) {
			return false
		}
	}
	return it.Err() == nil
}

// exactOrUnlike reports whether k is one of names or a case variant of
// none of them.
func exactOrUnlike(k []byte, names ...string) bool {
	for _, n := range names {
		if string(k) != n && strings.EqualFold(string(k), n) {
			return false
		}
	}
	return true
}

// plainLiteral is the string a literal without escapes stands for.
func plainLiteral(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// withoutMember is the plain object obj without its member name, encoded
// as decodeCapability encodes what remains: a map, its keys sorted.
func withoutMember(obj []byte, name string) json.RawMessage {
	rest := map[string]json.RawMessage{}
	eachPlain(obj, func(k, v []byte) bool {
		if string(k) != name {
			rest[string(k)] = v
		}
		return true
	})
	return encode(rest)
}
