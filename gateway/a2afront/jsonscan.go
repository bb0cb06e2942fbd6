package a2afront

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// A scanner over JSON text that is already known to be valid (json.Valid
// said so), for the answer processors' fast paths: it finds members and
// string literals without decoding anything, so that an answer with
// nothing to do costs no allocation. On text that is not valid JSON it
// never panics, but what it finds is meaningless: callers validate first.

// jsonSpace reports whether b is insignificant whitespace in JSON.
func jsonSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// skipSpace returns the index of the first byte at or after i that is not
// whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && jsonSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string literal starting at
// b[i] (a '"'), or len(b) when it is unterminated.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !jsonSpace(b[i]) {
		i++
	}
	return i
}

// memberIter walks the members of one JSON object.
type memberIter struct {
	b []byte
	i int
}

// newMemberIter walks obj, whose first non-space byte must be '{'.
func newMemberIter(obj []byte) memberIter {
	return memberIter{b: obj, i: skipSpace(obj, 0) + 1}
}

// next returns the next member: its key as written, without the quotes,
// and its value's text.
func (it *memberIter) next() (key, val []byte, ok bool) {
	b := it.b
	i := skipSpace(b, it.i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return nil, nil, false
	}
	end := stringEnd(b, i)
	key = b[i+1 : max(i+1, end-1)]
	i = skipSpace(b, end)
	if i < len(b) && b[i] == ':' {
		i = skipSpace(b, i+1)
	}
	end = valueEnd(b, i)
	it.i = end
	return key, b[i:end], true
}

// isObject reports whether the JSON text v is an object.
func isObject(v []byte) bool {
	i := skipSpace(v, 0)
	return i < len(v) && v[i] == '{'
}

// plainLiteral reports whether the content of a string literal (without
// its quotes) is the string itself: no escape sequence, valid UTF-8.
func plainLiteral(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// decodeString returns the string a JSON string literal (with its quotes)
// stands for.
func decodeString(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	if inner := lit[1 : len(lit)-1]; plainLiteral(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}

// stringValue decodes the JSON value raw into a string exactly as
// json.Unmarshal does (null leaves it empty), without its allocations
// when the literal has no escape.
func stringValue(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "", true
	}
	return decodeString(raw)
}

// hasLooseSpace reports whether the JSON text b has whitespace outside its
// string literals: whether json.Compact would change it.
func hasLooseSpace(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			i = stringEnd(b, i) - 1
		case jsonSpace(b[i]):
			return true
		}
	}
	return false
}

// eachLiteral calls fn with every string literal (quotes included) in the
// JSON text b, keys included, until fn returns true, and reports whether
// it did.
func eachLiteral(b []byte, fn func(lit []byte) bool) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := stringEnd(b, i)
		if fn(b[i:end]) {
			return true
		}
		i = end - 1
	}
	return false
}
