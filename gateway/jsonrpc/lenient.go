package jsonrpc

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Lenient readers. An upstream decodes a member name its own way: Go's
// encoding/json under Unicode simple case folding ("taſkId" is
// "taskId"), protojson and case-insensitive matchers also without
// underscores or dashes ("task_id"). Where the gateway must find every
// member such a reader would take for a name it checks, it reads names
// as these functions do: reading more spellings as a checked name only
// ever checks more.

// LenientMembers returns the members of a JSON object, or ok false when raw is
// not one.
func LenientMembers(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// LenientLookup returns the values of every member of m whose name is one of
// names as LenientName reads it.
func LenientLookup(m map[string]json.RawMessage, names ...string) []json.RawMessage {
	var out []json.RawMessage
	for k, v := range m {
		for _, n := range names {
			if LenientName(k, n) {
				out = append(out, v)
			}
		}
	}
	return out
}

// LenientName reports whether the member name k is name as the readers the
// gateway must agree with read it: without underscores or dashes (as
// protojson's field names and case-insensitive matchers that ignore
// separators do) and under Unicode case folding (encoding/json's, where
// "taſkId" is "taskId"). Reading more spellings as a name the gateway
// checks only ever checks more. LenientPlainName is its fast path for plain keys.
func LenientName(k, name string) bool {
	if strings.ContainsAny(k, "_-") {
		k = strings.NewReplacer("_", "", "-", "").Replace(k)
	}
	return strings.EqualFold(k, name)
}

// PlainName reports whether a key as written is ASCII without escapes: it
// decodes to itself, and lowercasing it is ASCII lowercasing.
func PlainName(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// LenientPlainName is LenientName for a plain (ASCII) key k and a lower-case name,
// without building the folded key.
func LenientPlainName(k []byte, name string) bool {
	j := 0
	for _, c := range k {
		if c == '_' || c == '-' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if j >= len(name) || name[j] != c {
			return false
		}
		j++
	}
	return j == len(name)
}
