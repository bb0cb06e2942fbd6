package loadtest

import (
	"bytes"
	"fmt"

	"github.com/capgate/capgate/gateway/jsonrpc"
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

// scanEnvelope walks the top-level members of a JSON object with
// jsonrpc's walk, without allocating. The walk finds member boundaries
// (skipping strings with their escapes and nested values) and stops where
// the structure of an object breaks, but is not a validator: it may accept
// some malformed JSON, and never panics. ok is false for anything that is
// not an object it can walk to its end. Keys are compared as written, so
// an escaped key ("\u0069d") is not recognised.
func scanEnvelope(b []byte) (env envelope, ok bool) {
	it, ok := jsonrpc.WalkObject(b)
	if !ok {
		return env, false
	}
	for m, more := it.Next(); more; m, more = it.Next() {
		env.set(m.Name, m.Value)
	}
	return env, it.Err() == nil
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
