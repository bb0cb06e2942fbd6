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
// text walks it as before. It records at most about one entry per eight
// bytes of text (layoutDensity), so that a text of tiny strings cannot
// make it far larger than the text; past that it is incomplete, and a
// reader walks the text as before. A Layout is reused from text to text
// by CheckLayout, and used by one goroutine at a time.
type Layout struct {
	text []byte
	lits []Literal
	// opens and ends are the offsets of each object and array's opening
	// bracket, in order, and of the byte just past its closing bracket.
	opens, ends []int32
	complete    bool
}

// Literal is where one string literal of a text is.
type Literal struct {
	// Start and End are the offsets of its opening quote and of the byte
	// just past its closing quote.
	Start, End int32
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
	l.complete = l.complete && err == nil
	return loose, err
}

// reset makes l an empty, complete layout of text, keeping its storage.
func (l *Layout) reset(text []byte) {
	l.text, l.lits, l.opens, l.ends, l.complete = text, l.lits[:0], l.opens[:0], l.ends[:0], true
}

// Of returns l when it is a complete layout of text (the very bytes it
// was recorded from), or nil.
func (l *Layout) Of(text []byte) *Layout {
	if l == nil || !l.complete || len(text) != len(l.text) || len(text) == 0 || &text[0] != &l.text[0] {
		return nil
	}
	return l
}

// Literals are the string literals of the text, in order. The slice is
// the layout's: read it, never keep it past the next check.
func (l *Layout) Literals() []Literal { return l.lits }

// full reports whether one more entry would make the layout denser than
// layoutDensity; the layout is then incomplete.
func (l *Layout) full() bool {
	if (len(l.lits)+len(l.opens))*layoutDensity > len(l.text)+64 {
		l.complete = false
	}
	return !l.complete
}

// literal records the string literal text[start:end].
func (l *Layout) literal(start, end int, escaped, name bool) {
	if l == nil || l.full() {
		return
	}
	l.lits = append(l.lits, Literal{Start: int32(start), End: int32(end), Escaped: escaped, Name: name})
}

// open records the object or array opening at pos and returns its index
// for close, or -1 when not recorded.
func (l *Layout) open(pos int) int {
	if l == nil || l.full() {
		return -1
	}
	l.opens, l.ends = append(l.opens, int32(pos)), append(l.ends, -1)
	return len(l.opens) - 1
}

// close records that the object or array i (from open) ends at end.
func (l *Layout) close(i, end int) {
	if l != nil && i >= 0 {
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
