package a2afront

import (
	"bytes"
	"encoding/json"
	"slices"
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
	dst = appendJSONString(dst, method)
	dst = append(dst, `,"params":{"skill":`...)
	dst = appendJSONString(dst, p.Skill)
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
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendRaw(dst, p.Arguments[k])
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"capabilityId":`...)
	dst = appendJSONString(dst, p.CapabilityID)
	return append(dst, "}}"...)
}

// appendJSONString appends s as json.Marshal writes it.
func appendJSONString(dst []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
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
