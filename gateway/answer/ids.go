package answer

import (
	"bytes"
	"encoding/json"
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

// MapIDs applies the id rule to one response of a call scoped to s, over
// the target's catalog c: every real id of the capability, in any string
// of the answer (values and member names, however escaped), becomes the
// caller's handle, and every other id of the catalog is redacted or
// refuses the answer (ErrUnmappedID). The answer is searched once for all
// the ids, whatever their number; one that names none of them, as written
// or once its escapes are decoded, is returned as it is.
func MapIDs(resp json.RawMessage, s *enforce.Scope, c *enforce.Catalog) (json.RawMessage, error) {
	ids := s.IDMap(c)
	at := ids.Index(resp)
	if at < 0 && bytes.IndexByte(resp, '\\') < 0 && utf8.Valid(resp) {
		return resp, nil
	}
	return mapAnswer(resp, ids, at)
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
