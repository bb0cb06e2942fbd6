package loadtest

import (
	"bytes"
	"fmt"
)

// envelope holds the raw top-level members of a JSON-RPC message that the
// load test looks at. Each is a slice of the scanned body (never a copy),
// nil when the member is absent.
type envelope struct {
	id, method, result, err []byte
}

// set records one top-level member; a later duplicate wins, as in
// encoding/json. Any case variant of "error" counts as the error member,
// so that a failure is never taken for a success.
func (e *envelope) set(key, value []byte) {
	switch string(key) {
	case "id":
		e.id = value
	case "method":
		e.method = value
	case "result":
		e.result = value
	default:
		if bytes.EqualFold(key, []byte("error")) {
			e.err = value
		}
	}
}

// methodIs reports whether the method member is the JSON string name,
// written without escapes.
func (e *envelope) methodIs(name string) bool {
	m := e.method
	return len(m) == len(name)+2 && m[0] == '"' && m[len(m)-1] == '"' && string(m[1:len(m)-1]) == name
}

// scanEnvelope walks the top-level members of a JSON object without
// allocating. It finds member boundaries (skipping strings with their
// escapes and nested values) but is not a validator: it may accept some
// malformed JSON, and never panics. ok is false for anything that is not
// an object it can walk to its end. Keys are compared as written, so an
// escaped key ("\u0069d") is not recognised.
func scanEnvelope(b []byte) (env envelope, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return env, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return env, skipSpace(b, i+1) == len(b)
	}
	for {
		var key []byte
		var end int
		if key, end, ok = scanString(b, i); !ok {
			return env, false
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return env, false
		}
		i = skipSpace(b, i+1)
		if end, ok = skipValue(b, i); !ok {
			return env, false
		}
		env.set(key, b[i:end])
		if i = skipSpace(b, end); i >= len(b) {
			return env, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return env, skipSpace(b, i+1) == len(b)
		default:
			return env, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the JSON string starting at b[i]. It returns its
// content as written (escapes left in), and the index just past it.
func scanString(b []byte, i int) (content []byte, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, len(b), false
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		_, end, ok := scanString(b, i)
		return end, ok
	case '{', '[':
		return skipNested(b, i)
	}
	j := i
	for j < len(b) && !isDelimiter(b[j]) {
		j++
	}
	return j, j > i
}

// skipNested skips an object or array, counting brackets outside strings.
func skipNested(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			_, end, ok := scanString(b, j)
			if !ok {
				return len(b), false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, true
			}
		}
	}
	return len(b), false
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', '{', '[', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// maxSnippet bounds the part of a bad response quoted in an error.
const maxSnippet = 160

// CheckResponse reports whether one answer is a successful JSON-RPC
// result: HTTP 200, a JSON object with a result member and no error
// member. It allocates only when the answer is bad. The error wraps
// ErrStatus, ErrRPCError or ErrMalformedResponse.
func CheckResponse(status int, body []byte) error {
	if status != 200 {
		return fmt.Errorf("%w: %d: %s", ErrStatus, status, snippet(body))
	}
	env, ok := scanEnvelope(body)
	switch {
	case !ok:
		return fmt.Errorf("%w: %s", ErrMalformedResponse, snippet(body))
	case env.err != nil:
		return fmt.Errorf("%w: %s", ErrRPCError, snippet(env.err))
	case env.result == nil:
		return fmt.Errorf("%w: no result member: %s", ErrMalformedResponse, snippet(body))
	}
	return nil
}

func snippet(b []byte) string {
	if len(b) > maxSnippet {
		return string(b[:maxSnippet]) + "…"
	}
	return string(b)
}
