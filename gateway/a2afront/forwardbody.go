package a2afront

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

// appendInvokeRequest appends the forwarded a2a/skill/invoke request,
// byte for byte what encodeRequest writes for forwardedParams, without
// reflection: members that need no escaping or compaction (all of them,
// in practice) are copied as they are, and only the others go through
// encoding/json's own Compact and HTMLEscape.
func appendInvokeRequest(dst []byte, id json.RawMessage, method string, p forwardedParams) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendRaw(dst, id)
	dst = append(dst, `,"method":`...)
	dst = jsonrpc.AppendString(dst, method)
	dst = append(dst, `,"params":{"skill":`...)
	dst = jsonrpc.AppendString(dst, p.Skill)
	dst = append(dst, `,"arguments":`...)
	if p.Arguments == nil {
		dst = append(dst, "null"...)
	} else {
		var keyBuf [8]string
		keys := keyBuf[:0]
		for k := range p.Arguments {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonrpc.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendRaw(dst, p.Arguments[k])
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"capabilityId":`...)
	dst = jsonrpc.AppendString(dst, p.CapabilityID)
	return append(dst, "}}"...)
}

// appendRaw appends a valid JSON value as json.Marshal writes a
// json.RawMessage: compacted, with <, >, &, U+2028 and U+2029 escaped.
// A nil or empty value is null.
func appendRaw(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	if !bytes.ContainsAny(raw, " \t\r\n<>&\u2028\u2029") {
		return append(dst, raw...)
	}
	var compact, escaped bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		panic("a2a front: a forwarded value is not valid JSON: " + err.Error())
	}
	json.HTMLEscape(&escaped, compact.Bytes())
	return append(dst, escaped.Bytes()...)
}

// encodeJSON encodes a string or a list of strings, which always encode.
func encodeJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("a2a front: " + err.Error())
	}
	return b
}
