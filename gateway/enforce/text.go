package enforce

import "slices"

// Text is one search of a whole answer for a map's ids, shared by every
// part of it the caller rewrites, left to right: each id is searched
// about once over the answer, however many strings it is split into.
// Searching each string on its own would read the text once per string
// for an id that occurs in none of them. A Text is used by one goroutine.
type Text struct {
	m  *IDMap
	b  []byte
	sc *scan
	// accepted are replacements an AppendReplace's asIs accepted: an
	// answer names a few ids many times, and each is tested once.
	accepted []string
}

// maxAccepted bounds Text.accepted: past it, a replacement is tested
// each time.
const maxAccepted = 8

// Text starts a search of b for the map's ids.
func (m *IDMap) Text(b []byte) *Text {
	return &Text{m: m, b: b, sc: m.scan(b)}
}

// Index returns where the first of the map's ids at or after from starts,
// or -1. from must not be less than any earlier call's from, or than the
// end of any part an earlier AppendReplace read.
func (t *Text) Index(from int) int {
	if h, ok := t.sc.next(from); ok {
		return h.start
	}
	return -1
}

// AppendReplace is IDMap.AppendReplace of t's text between start and end:
// the same bytes and results, each id inside that part found by the one
// search of the whole text. Its parts must come in order and not overlap
// (start not less than an earlier call's end). An id found starting inside
// the part that runs past its end is no occurrence of the part's own, and
// the longest id starting there may hide a shorter one that ends inside:
// that part alone is then searched on its own, as IDMap.AppendReplace does.
func (t *Text) AppendReplace(dst []byte, start, end int, asIs func(string) bool) (out []byte, changed, refused, ok bool) {
	mark, last := len(dst), start
	for h, found := t.sc.next(last); found && h.start < end; h, found = t.sc.next(last) {
		switch {
		case h.end > end:
			return t.m.AppendReplace(dst[:mark], t.b[start:end], asIs)
		case h.refuse:
			return dst[:mark], false, true, true
		case asIs != nil && !slices.Contains(t.accepted, h.with):
			if !asIs(h.with) {
				return dst[:mark], false, false, false
			}
			if len(t.accepted) < maxAccepted {
				t.accepted = append(t.accepted, h.with)
			}
		}
		dst = append(dst, t.b[last:h.start]...)
		dst = append(dst, h.with...)
		last, changed = h.end, true
	}
	if !changed {
		return dst, false, false, true
	}
	return append(dst, t.b[last:end]...), true, false, true
}
