package answer

import (
	"bytes"
	"context"
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
//
// Run as a pipeline's processor (ctx is then the chain's), a change that
// rewrote string values and no member name is vouched for: the pipeline
// does not check it again, for it is as well-formed as the answer the
// check accepted, with the same names and the same whitespace.
func MapIDs(ctx context.Context, resp json.RawMessage, s *enforce.Scope, c *enforce.Catalog) (json.RawMessage, error) {
	return MapIDsWith(ctx, resp, s.IDMap(c))
}

// MapIDsWith is MapIDs over the rewrites ids a front already built for
// the call's scope (Scope.IDMap) to decide it, so a call builds them once.
func MapIDsWith(ctx context.Context, resp json.RawMessage, ids *enforce.IDMap) (json.RawMessage, error) {
	text := ids.Text(resp)
	at := text.Index(0)
	if at < 0 && bytes.IndexByte(resp, '\\') < 0 && utf8.Valid(resp) {
		return resp, nil
	}
	out, names, err := mapAnswer(resp, ids, text, at, arenaOf(ctx), LayoutOf(ctx, resp))
	if err == nil && !names {
		vouchFor(ctx, resp, out)
	}
	return out, err
}

// vouch is where the chain learns which output of a processor needs no
// check again: out, when set, was written by the id mapping from in with
// no member name changed. The chain trusts it only when in is the very
// text it gave the processor, which the check accepted. It is the
// context the chain gives its processors, holding itself under vouchKey,
// so that a chain allocates it once.
type vouch struct {
	context.Context
	in, out json.RawMessage
}

// Value implements context.Context.
func (v *vouch) Value(key any) any {
	if key == (vouchKey{}) {
		return v
	}
	return v.Context.Value(key)
}

// vouchKey is the context key of the chain's *vouch.
type vouchKey struct{}

// vouchFor tells the chain running in ctx, if any, that out, mapped from
// in, needs no check again.
func vouchFor(ctx context.Context, in, out json.RawMessage) {
	if v, ok := ctx.Value(vouchKey{}).(*vouch); ok {
		v.in, v.out = in, out
	}
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
