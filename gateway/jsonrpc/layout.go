package jsonrpc

import "slices"

// A Layout is what Strict learned of a text while checking it: where each
// string literal is, and where each object and array ends. The check
// reads every byte of a text anyway; the readers that come after it (the
// walk of an answer's tasks, the search of its strings for ids) use its
// layout instead of finding those places again, so that an answer is
// read once for its structure, however many readers it has.
//
// A layout describes the one text it was recorded from, and applies only
// to that very text (the same bytes in memory): a reader given another
// text walks it as before. It records at most one entry (a literal or a
// container, eight bytes each) per layoutDensity bytes of text, and never
// grows its storage past that, so that it is never larger than the text;
// a text denser than that leaves it incomplete, its storage dropped, and
// readers walk the text as before. A Layout is reused from text to text
// by CheckLayout, and used by one goroutine at a time.
type Layout struct {
	text []byte
	lits []literal
	// opens and ends are the offsets of each object and array's opening
	// bracket, in order, and of the byte just past its closing bracket.
	opens, ends []int32
	// room is how many entries the text allows (layoutDensity).
	room     int
	complete bool
}

// literal is a Literal in eight bytes: its end holds the flags in its two
// top bits (a text is at most MaxBodyBytesCeiling bytes, 2^28).
type literal struct{ start, end uint32 }

const (
	litEscaped = 1 << 31
	litName    = 1 << 30
	litEnd     = litName - 1
)

// Literal is where one string literal of a text is.
type Literal struct {
	// Start and End are the offsets of its opening quote and of the byte
	// just past its closing quote.
	Start, End int
	// Escaped is set when it holds an escape sequence: then the string it
	// stands for differs from its bytes. A text Strict accepted is valid
	// UTF-8, so a literal without one is its string.
	Escaped bool
	// Name is set when it is a member name.
	Name bool
}

// layoutDensity is the number of bytes of text per entry a layout
// records at most.
const layoutDensity = 8

// CheckLayout is CheckLoose, which also records text's layout into l
// (reset first). l is complete only when err is nil and the text was not
// too dense to record.
func (s *Strict) CheckLayout(text []byte, l *Layout) (loose bool, err error) {
	l.reset(text)
	loose, err = s.check(text, l)
	if err != nil {
		l.drop()
	}
	return loose, err
}

// reset makes l an empty, complete layout of text, keeping its storage.
func (l *Layout) reset(text []byte) {
	l.text, l.lits, l.opens, l.ends = text, l.lits[:0], l.opens[:0], l.ends[:0]
	l.room, l.complete = len(text)/layoutDensity+8, true
}

// drop makes l incomplete and lets go of its storage.
func (l *Layout) drop() {
	l.lits, l.opens, l.ends, l.complete = nil, nil, nil, false
}

// Forget lets go of the text l was recorded from, and of its storage when
// it holds more than maxKept entries: a layout kept for reuse (in a pool)
// keeps neither an old answer nor the room a large one needed.
func (l *Layout) Forget(maxKept int) {
	l.text = nil
	if cap(l.lits)+cap(l.opens) > maxKept {
		l.drop()
	}
}

// Of returns l when it is a complete layout of text (the very bytes it
// was recorded from), or nil.
func (l *Layout) Of(text []byte) *Layout {
	if l == nil || !l.complete || len(text) != len(l.text) || len(text) == 0 || &text[0] != &l.text[0] {
		return nil
	}
	return l
}

// NumLiterals is the number of string literals of the text.
func (l *Layout) NumLiterals() int { return len(l.lits) }

// Literal returns the text's string literal number i, in order.
func (l *Layout) Literal(i int) Literal {
	e := l.lits[i]
	return Literal{Start: int(e.start), End: int(e.end & litEnd), Escaped: e.end&litEscaped != 0, Name: e.end&litName != 0}
}

// full reports whether the layout has no room for one more entry; it is
// then dropped, incomplete.
func (l *Layout) full() bool {
	if l.complete && len(l.lits)+len(l.opens) >= l.room {
		l.drop()
	}
	return !l.complete
}

// grow makes room in s for one more element without growing it past the
// layout's room.
func grow[T any](s []T, room int) []T {
	if len(s) < cap(s) {
		return s
	}
	grown := make([]T, len(s), len(s)+max(1, min(max(cap(s), 16), room-len(s))))
	copy(grown, s)
	return grown
}

// literal records the string literal text[start:end].
func (l *Layout) literal(start, end int, escaped, name bool) {
	if l == nil || l.full() {
		return
	}
	e := literal{start: uint32(start), end: uint32(end)}
	if escaped {
		e.end |= litEscaped
	}
	if name {
		e.end |= litName
	}
	l.lits = append(grow(l.lits, l.room), e)
}

// open records the object or array opening at pos and returns its index
// for close, or -1 when not recorded.
func (l *Layout) open(pos int) int {
	if l == nil || l.full() {
		return -1
	}
	l.opens, l.ends = append(grow(l.opens, l.room), int32(pos)), append(grow(l.ends, l.room), -1)
	return len(l.opens) - 1
}

// close records that the object or array i (from open) ends at end.
func (l *Layout) close(i, end int) {
	if l != nil && i >= 0 && l.complete {
		l.ends[i] = int32(end)
	}
}

// containerEnd is where the object or array opening at pos ends, when
// the layout knows it.
func (l *Layout) containerEnd(pos int) (int, bool) {
	i, found := slices.BinarySearch(l.opens, int32(pos))
	if !found || l.ends[i] < 0 {
		return 0, false
	}
	return int(l.ends[i]), true
}

// FirstMember is FirstMember through the layout, when it is text's.
func (l *Layout) FirstMember(text []byte, name string) (at int, escaped, isObject bool) {
	o, isObject := WalkObject(text)
	if l = l.Of(text); l != nil {
		o.w.lay = l
	}
	if !isObject {
		return -1, false, false
	}
	for {
		n, escaped, at, ok := o.name()
		switch {
		case !ok:
			return -1, false, true
		case escaped:
			return -1, true, true
		case string(n) == name:
			return at, false, true
		}
		if _, ok := o.w.value(at); !ok {
			return -1, false, true
		}
	}
}

// WalkObjectAt is WalkObjectAt through the layout, when it is text's:
// the walk skips each member's object or array value to where the layout
// says it ends, and so does a walk of one of them (ObjectWalk.WalkObject).
func (l *Layout) WalkObjectAt(text []byte, at int) (o ObjectWalk, ok bool) {
	if at < 0 || at >= len(text) || !o.w.start(text[at:], '{', '}') {
		return ObjectWalk{}, false
	}
	o.w.within = true
	if l = l.Of(text); l != nil {
		o.w.lay, o.w.base = l, at
	}
	return o, true
}

// WalkObject starts a walk over the members of the object that is m's
// value (a member this walk returned): WalkObject(m.Value), through the
// walk's layout if it has one. ok is false when the value is not an
// object.
func (o *ObjectWalk) WalkObject(m Member) (inner ObjectWalk, ok bool) {
	if o.w.lay == nil {
		return WalkObject(m.Value)
	}
	return o.w.lay.WalkObjectAt(o.w.lay.text, m.at)
}

// valueEnd is valueEnd on the walk's text, through its layout if any.
func (w *seqWalk) valueEnd(pos int) (int, bool) {
	if w.lay != nil && pos < len(w.text) && (w.text[pos] == '{' || w.text[pos] == '[') {
		if end, ok := w.lay.containerEnd(w.base + pos); ok {
			return end - w.base, true
		}
	}
	return valueEnd(w.text, pos)
}
