package answer

import (
	"encoding/json"

	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// What the pipeline reads of the strings of an answer: every literal
// visited, rewritten in place, and the whitespace between literals. The
// walk is jsonrpc's, on text the answer check accepted.

// mapAnswer rewrites, in every string of the valid JSON text raw (values
// and object keys alike), each id of the map, and returns the text with
// only the strings that changed re-encoded, members in their order: raw
// itself when nothing changed. names says whether a member name changed;
// nothing else but the text of string values ever does. Every value is seen, a duplicate member's
// too. A refused id fails it with ErrUnmappedID. text is the search of
// raw for the map's ids, and at where the first id in raw starts, or -1:
// a literal written plainly is decoded only if an id starts inside it,
// and raw is searched once, from left to right.
//
// The output is written into a buffer from held (nil allocates it).
func mapAnswer(raw json.RawMessage, ids *enforce.IDMap, text *enforce.Text, at int, held *arena, lay *jsonrpc.Layout) (_ json.RawMessage, names bool, _ error) {
	var out []byte
	last, mapped := 0, false
	lits := walkLiterals(raw, lay)
	for start, end, plain, name, ok := lits.next(); ok; start, end, plain, name, ok = lits.next() {
		lit := raw[start:end]
		if plain && at >= 0 && at <= start {
			at = text.Index(start + 1)
		}
		if plain && (at < 0 || at >= end-1) {
			continue
		}
		if out == nil {
			out = held.alloc(len(raw) + len(raw)/4)
		}
		next, changed, refused, done := mapAsIs(append(out, raw[last:start]...), raw, start, end, plain, text)
		if !done {
			var s string
			s, changed, refused = mapLiteral(lit, plain, ids)
			next = jsonrpc.AppendString(append(out, raw[last:start]...), s)
		}
		if refused {
			return nil, false, ErrUnmappedID
		}
		if changed {
			out, last, mapped = next, end, true
			names = names || name
		}
	}
	if !mapped {
		return raw, false, nil
	}
	return append(out, raw[last:]...), names, nil
}

// literals visits the string literals of a valid JSON text in order:
// from the layout its check recorded when there is one, or by walking it.
type literals struct {
	raw  []byte
	lay  *jsonrpc.Layout
	i    int
	walk jsonrpc.StringWalk
}

// walkLiterals visits the literals of raw, through lay when it is raw's.
func walkLiterals(raw []byte, lay *jsonrpc.Layout) *literals {
	return &literals{raw: raw, lay: lay.Of(raw), walk: jsonrpc.WalkStrings(raw)}
}

// next returns where the next literal is, raw[start:end], whether it is
// plain (jsonrpc.PlainString of its content: a text the check accepted
// is valid UTF-8, so a literal without an escape is plain) and whether it
// is a member name.
func (l *literals) next() (start, end int, plain, name, ok bool) {
	if l.lay != nil {
		if l.i == l.lay.NumLiterals() {
			return 0, 0, false, false, false
		}
		lit := l.lay.Literal(l.i)
		l.i++
		return lit.Start, lit.End, !lit.Escaped, lit.Name, true
	}
	if start, end, ok = l.walk.Next(); !ok {
		return 0, 0, false, false, false
	}
	return start, end, jsonrpc.PlainString(l.raw[start+1 : end-1]), isName(l.raw, end), true
}

// isName reports whether the string literal of valid JSON text b that
// ends at end is a member name: a colon follows it.
func isName(b []byte, end int) bool {
	for ; end < len(b); end++ {
		switch b[end] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b[end] == ':'
	}
	return false
}

// mapAsIs maps the plain literal raw[start:end] when its text, and every
// replacement in it, AppendString writes as it is: the literal is
// appended to dst with each id replaced in place, without decoding it to
// a string and encoding the result again; the bytes are those mapLiteral
// and AppendString would write. done is false for any other literal,
// which mapLiteral maps.
func mapAsIs(dst, raw []byte, start, end int, plain bool, text *enforce.Text) (out []byte, changed, refused, done bool) {
	if !plain || !plainAsIs(raw[start+1:end-1]) {
		return dst, false, false, false
	}
	out, changed, refused, done = text.AppendReplace(append(dst, '"'), start+1, end-1, jsonrpc.AsIs[string])
	return append(out, '"'), changed, refused, done
}

// mapLiteral is the map's Replace on the string a JSON string literal
// stands for; a plain literal is its text, not decoded.
func mapLiteral(lit []byte, plain bool, ids *enforce.IDMap) (s string, changed, refused bool) {
	if plain {
		s = string(lit[1 : len(lit)-1])
	} else {
		s, _ = jsonrpc.Unquote(lit)
	}
	out, refused := ids.Replace(s)
	return out, !refused && out != s, refused
}
