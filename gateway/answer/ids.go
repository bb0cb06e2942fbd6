package answer

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// ErrUnmappedID refuses an answer carrying a real id the caller holds no
// handle for, on a target configured to refuse rather than redact.
var ErrUnmappedID = &jsonrpc.Error{
	Code: jsonrpc.CodeResourceNotPermitted, Message: "the agent answered with a resource the capability does not designate",
	Data: map[string]any{"reason": jsonrpc.ReasonResourceNotPermitted},
}

// MapIDs applies the id rule to one response of a call scoped to s: every
// real id of the capability, in any string of the answer (values and
// member names, however escaped), becomes the caller's handle, and every
// other id known of the target is redacted or refuses the answer
// (ErrUnmappedID). An answer that names none of them is returned as it
// is, without building the map.
func MapIDs(resp json.RawMessage, s *enforce.Scope, k enforce.Known) (json.RawMessage, error) {
	if !mentionsIDs(resp, s, k) {
		return resp, nil
	}
	return mapAnswer(resp, s.IDMap(k))
}

// Lines is the line filter of a stream scoped to a capability: the event,
// id and retry fields a client keeps (its Last-Event-ID) have their ids
// mapped like the data, a field that would be refused is dropped, and
// comments, which no client acts on, are dropped rather than scanned.
func Lines(ids *enforce.IDMap) LineFilter {
	return func(line []byte) ([]byte, bool) {
		if line[0] == ':' {
			return nil, false
		}
		out, refused := ids.Replace(string(line))
		return []byte(out), !refused
	}
}

// mentionsIDs is MapIDs' fast path, which builds nothing: an answer in
// which none of the ids the map would rewrite appears, neither as written
// nor in any string literal once its escapes are decoded ("a\/b" is
// "a/b"), cannot carry one. resp is valid JSON.
func mentionsIDs(resp json.RawMessage, s *enforce.Scope, k enforce.Known) bool {
	if s.AnyID(k, func(id string) bool { return bytes.Contains(resp, []byte(id)) }) {
		return true
	}
	if bytes.IndexByte(resp, '\\') < 0 && utf8.Valid(resp) {
		return false
	}
	return eachLiteral(resp, func(lit []byte) bool {
		if jsonrpc.PlainString(lit[1 : len(lit)-1]) {
			return false
		}
		str, _ := jsonrpc.Unquote(lit)
		return s.AnyID(k, func(id string) bool { return strings.Contains(str, id) })
	})
}
