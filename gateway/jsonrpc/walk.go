package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The one walk over JSON text in capgate. WalkObject, WalkArray and
// WalkStrings find where the members of an object, the elements of an
// array and the string literals of a text start and end, without decoding
// or copying anything: a reader that needs one member of a large text
// pays for finding it, not for decoding the rest. A fast path is a
// different use of these walks, never a second parser.
//
// They are exact on text this package has checked (Decode, Strict.Check,
// UnmarshalParams), and do not check it again: on such text they find what
// every conforming parser finds. On any other text they never panic and
// stop where the structure breaks (a missing colon, comma or closing
// bracket, an unterminated string, anything after the value), which Err
// reports; they check nothing beyond that structure (not the grammar of
// numbers and literals, UTF-8, names or depth), so what they find there is
// only as good as the text.
//
// On a text Strict checked with CheckLayout, the walks started from its
// Layout skip objects and arrays to where the check found they end, so a
// reader of a few members of a large answer does not read its content
// again (layout.go).

// Member is one member of a JSON object, as written.
type Member struct {
	// Name is the member's name between its quotes, escape sequences
	// left in.
	Name []byte
	// Escaped reports whether Name holds an escape sequence: then the name
	// it stands for may differ from its bytes.
	Escaped bool
	// Value is the text of the member's value, without whitespace around
	// it.
	Value []byte
	// at is where Value starts in the text of the walk's layout.
	at int
}

// walkState is where a walk over the members or elements of one value is;
// the zero value is a walk that is over.
type walkState uint8

const (
	walkDone walkState = iota
	walking
	walkBroken
)

// seqWalk is what walking an object and walking an array share: the
// commas between items and the closing bracket.
type seqWalk struct {
	text  []byte
	pos   int  // where the walk resumes
	after bool // an item was read: a comma or the closing bracket is next
	state walkState
	close byte
	// within: the value is one inside text, which goes on after its
	// closing bracket.
	within bool
	// lay, when set, is the layout of the text text is part of, from
	// offset base: containers are skipped to where it says they end.
	lay  *Layout
	base int
}

// start begins a walk over text, leading whitespace allowed, when its
// value opens with open.
func (w *seqWalk) start(text []byte, open, close byte) bool {
	pos := skipSpace(text, 0)
	if pos >= len(text) || text[pos] != open {
		return false
	}
	*w = seqWalk{text: text, pos: pos + 1, state: walking, close: close}
	return true
}

// item returns the offset of the next item, or ok false after the last
// one or where the structure breaks.
func (w *seqWalk) item() (pos int, ok bool) {
	if w.state != walking {
		return 0, false
	}
	d := w.text
	pos = skipSpace(d, w.pos)
	switch {
	case pos < len(d) && d[pos] == w.close:
		w.state = walkDone
		if end := skipSpace(d, pos+1); end != len(d) && !w.within {
			w.broken(end)
		}
		return 0, false
	case !w.after:
	case pos < len(d) && d[pos] == ',':
		pos = skipSpace(d, pos+1)
	default:
		w.broken(pos)
		return 0, false
	}
	w.after = true
	return pos, true
}

// broken stops the walk where the structure breaks, at pos.
func (w *seqWalk) broken(pos int) {
	w.state, w.pos = walkBroken, pos
}

// value returns the value at pos and moves past it.
func (w *seqWalk) value(pos int) ([]byte, bool) {
	end, ok := w.valueEnd(pos)
	if !ok {
		w.broken(end)
		return nil, false
	}
	w.pos = end
	return w.text[pos:end], true
}

func (w *seqWalk) err() error {
	if w.state != walkBroken {
		return nil
	}
	if w.pos >= len(w.text) {
		return fmt.Errorf("%w: unexpected end of input", ErrParse)
	}
	return fmt.Errorf("%w: unexpected character at offset %d", ErrParse, w.pos)
}

// ObjectWalk is a walk over the members of one JSON object, in the order
// they are written, duplicates included. The zero value walks nothing.
type ObjectWalk struct{ w seqWalk }

// WalkObject starts a walk over the members of the object text, which may
// have whitespace around it. ok is false when text is not an object.
func WalkObject(text []byte) (o ObjectWalk, ok bool) {
	return o, o.w.start(text, '{', '}')
}

// WalkObjectAt starts a walk over the members of the object that starts at
// text[at] (FirstMember's at, say), which ends at its closing bracket:
// what follows it in text is not the walk's. ok is false when no object
// starts there.
func WalkObjectAt(text []byte, at int) (o ObjectWalk, ok bool) {
	var l *Layout
	return l.WalkObjectAt(text, at)
}

// Next returns the next member. ok is false after the last one, or where
// the text breaks the structure of an object (Err).
func (o *ObjectWalk) Next() (m Member, ok bool) {
	name, escaped, at, ok := o.name()
	if !ok {
		return Member{}, false
	}
	value, ok := o.w.value(at)
	if !ok {
		return Member{}, false
	}
	return Member{Name: name, Escaped: escaped, Value: value, at: o.w.base + at}, true
}

// name reads the name of the next member, and returns it with where its
// value starts; the walk then stands at that value.
func (o *ObjectWalk) name() (name []byte, escaped bool, at int, ok bool) {
	pos, ok := o.w.item()
	if !ok {
		return nil, false, 0, false
	}
	d := o.w.text
	if pos >= len(d) || d[pos] != '"' {
		o.w.broken(pos)
		return nil, false, 0, false
	}
	end, escaped, ok := stringEnd(d, pos)
	colon := skipSpace(d, end)
	if !ok || colon >= len(d) || d[colon] != ':' {
		o.w.broken(colon)
		return nil, false, 0, false
	}
	return d[pos+1 : end-1], escaped, skipSpace(d, colon+1), true
}

// FirstMember finds, in the object text, the value of the first member
// whose name is written exactly name, and returns where it starts (at)
// without finding where it ends: only the members written before it are
// walked, so a reader of one large member pays for the others alone. at
// is -1 when there is no such member, or when a name before it has an
// escape sequence (escaped), which only decoding can compare. On a text
// whose names are unique (one Strict or Decode accepted), that member is
// the only one of its name. isObject is false when text is not an object.
func FirstMember(text []byte, name string) (at int, escaped, isObject bool) {
	var l *Layout
	return l.FirstMember(text, name)
}

// Err returns nil when the walk ended at the object's closing bracket, with
// nothing but whitespace after it, or has not ended; otherwise an error
// that is ErrParse, saying where the structure broke.
func (o *ObjectWalk) Err() error { return o.w.err() }

// ArrayWalk is a walk over the elements of one JSON array, in order. The
// zero value walks nothing.
type ArrayWalk struct{ w seqWalk }

// WalkArray starts a walk over the elements of the array text, which may
// have whitespace around it. ok is false when text is not an array.
func WalkArray(text []byte) (a ArrayWalk, ok bool) {
	return a, a.w.start(text, '[', ']')
}

// Next returns the text of the next element. ok is false after the last
// one, or where the text breaks the structure of an array (Err).
func (a *ArrayWalk) Next() (elem []byte, ok bool) {
	pos, ok := a.w.item()
	if !ok {
		return nil, false
	}
	return a.w.value(pos)
}

// Err is ObjectWalk.Err for an array.
func (a *ArrayWalk) Err() error { return a.w.err() }

// StringWalk is a walk over every string literal of a JSON text, member
// names and values alike, at any depth, in order. The zero value walks
// nothing.
type StringWalk struct {
	text []byte
	pos  int
}

// WalkStrings starts a walk over the string literals of text.
func WalkStrings(text []byte) StringWalk { return StringWalk{text: text} }

// Next returns where the next literal is, quotes included: text[start:end].
// ok is false after the last one, or at a literal that is not terminated.
func (s *StringWalk) Next() (start, end int, ok bool) {
	// Between two literals of JSON text there are a few bytes at most,
	// which a loop finds faster than a call to bytes.IndexByte.
	d := s.text
	for start = s.pos; start < len(d); start++ {
		if d[start] == '"' {
			end, _, ok = stringEnd(d, start)
			s.pos = end
			return start, end, ok
		}
	}
	s.pos = len(d)
	return 0, 0, false
}

// Unquote returns the string the JSON string literal lit (quotes included)
// stands for, exactly as encoding/json decodes it, and allocates nothing
// but the string when lit holds no escape sequence. ok is false when lit
// is not a string literal.
func Unquote(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	if inner := lit[1 : len(lit)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	// Declared here, s moves to the heap on this path only.
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}

// valueEnd returns the offset just past the value at pos; ok is false
// when there is none, or it is not terminated.
func valueEnd(d []byte, pos int) (end int, ok bool) {
	if pos >= len(d) {
		return pos, false
	}
	switch d[pos] {
	case '"':
		end, _, ok = stringEnd(d, pos)
		return end, ok
	case '{', '[':
		return containerEnd(d, pos)
	}
	end = pos
	for end < len(d) && !isDelim(d[end]) {
		end++
	}
	return end, end > pos
}

// containerEnd returns the offset just past the object or array at pos,
// counting brackets outside strings.
func containerEnd(d []byte, pos int) (end int, ok bool) {
	depth := 0
	for pos < len(d) {
		switch d[pos] {
		case '"':
			if pos, _, ok = stringEnd(d, pos); !ok {
				return pos, false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return pos + 1, true
			}
		}
		pos++
	}
	return pos, false
}

// stringEnd returns the offset just past the string at pos, and whether
// it holds an escape; ok is false when it is not terminated. A short
// string is read a word at a time; past its first words the closing
// quote is found with bytes.IndexByte, which reads long text at memory
// speed, and the backslashes before it the same way: the string ends at
// the first quote no backslash escapes.
func stringEnd(d []byte, pos int) (end int, escaped, ok bool) {
	i, stop := pos+1, min(len(d), pos+1+shortString)
	for i < stop {
		if i = quoteEnd(d[:stop], i); i >= stop {
			break
		}
		if d[i] == '"' {
			return i + 1, escaped, true
		}
		escaped, i = true, i+2 // d[i] is '\\': the byte after it is escaped
	}
	return longStringEnd(d, min(i, len(d)), escaped)
}

// shortString is how many bytes of a string stringEnd reads a word at a
// time before it turns to bytes.IndexByte: the length of most names and
// short values.
const shortString = 32

// longStringEnd is stringEnd from offset i, which no escape sequence
// straddles.
func longStringEnd(d []byte, i int, escaped bool) (end int, _, ok bool) {
	for {
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			return len(d), escaped || bytes.IndexByte(d[i:], '\\') >= 0, false
		}
		q += i
		for {
			b := bytes.IndexByte(d[i:q], '\\')
			if b < 0 {
				return q + 1, escaped, true
			}
			escaped, i = true, i+b+2
			if i > q { // the backslash escaped the quote at q
				break
			}
		}
	}
}

func skipSpace(d []byte, pos int) int {
	for pos < len(d) && isSpace(d[pos]) {
		pos++
	}
	return pos
}

// isDelim reports the bytes that end a number or a literal.
func isDelim(b byte) bool {
	switch b {
	case ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return isSpace(b)
}
