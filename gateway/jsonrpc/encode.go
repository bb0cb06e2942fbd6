package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as json.Marshal writes it, without
// json.Marshal's allocations when s needs no escape.
func AppendString(dst []byte, s string) []byte {
	if !AsIs(s) {
		b, _ := json.Marshal(s) // a string always encodes
		return append(dst, b...)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// AsIs reports whether AppendString writes s as it is, between quotes:
// printable ASCII without '"', '\\', '<', '>' or '&'.
func AsIs[T string | []byte](s T) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// PlainString reports whether the content of a string literal (without
// its quotes) is the string itself: no escape sequence, valid UTF-8. Such
// a literal can be read without decoding it.
func PlainString(content []byte) bool {
	return bytes.IndexByte(content, '\\') < 0 && utf8.Valid(content)
}
