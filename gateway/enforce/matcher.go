package enforce

import (
	ahocorasick "github.com/petar-dambovaliev/aho-corasick"
)

// matcher finds a set of ids in text in one pass, whatever their number:
// an Aho–Corasick automaton built once over the set, searched
// leftmost-longest. A nil matcher, over no id, finds nothing. It is
// immutable and safe for concurrent use.
type matcher struct {
	ac ahocorasick.AhoCorasick
	// pre, when set, finds the automaton's matches without it on text
	// where few positions could start an id (prefilter).
	pre *prefilter
	// few, when set, are searched one by one instead: the handful of ids
	// of one capability, for which building an automaton on every call
	// would cost far more than the search, each skipping to its rarest
	// byte (rareID).
	few []rareID
}

// newFewMatcher is the matcher of the few ids of one capability, which
// costs nothing to build; its search is in the number of those ids, never
// in a catalog's.
func newFewMatcher(ids []string) *matcher {
	if len(ids) == 0 {
		return nil
	}
	m := &matcher{few: make([]rareID, len(ids))}
	for i, id := range ids {
		m.few[i] = newRareID(id)
	}
	return m
}

// newMatcher builds the matcher of ids, none of them empty.
func newMatcher(ids []string) *matcher {
	if len(ids) == 0 {
		return nil
	}
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{MatchKind: ahocorasick.LeftMostLongestMatch, DFA: true})
	return &matcher{ac: b.Build(ids), pre: newPrefilter(ids)}
}

// match is one occurrence of an id: text[start:end] is the id numbered
// pattern in the set.
type match struct{ start, end, pattern int }

// bestFew returns the occurrence of one of few in b that starts first at
// or after from, the longest of those starting there, with at[i], when
// given, the start of the next
// occurrence of few[i] at or after an earlier search's from (-1: none
// after it; unknownPos: not searched yet). An id is searched again only
// once from has passed its known occurrence, so a cursor reads the text
// about once per id however many occurrences of the others it finds; a
// search that went to the end for an id that never occurs is not
// repeated.
func (m *matcher) bestFew(b []byte, from int, at []int) (match, bool) {
	best, found := match{}, false
	for i, r := range m.few {
		s := unknownPos
		if at != nil {
			s = at[i]
		}
		if s == unknownPos || s >= 0 && s < from {
			s = r.index(b, from)
			if at != nil {
				at[i] = s
			}
		}
		if s < 0 {
			continue
		}
		if !found || s < best.start || s == best.start && s+len(r.id) > best.end {
			best, found = match{start: s, end: s + len(r.id), pattern: i}, true
		}
	}
	return best, found
}

// unknownPos marks an id of few not searched for yet.
const unknownPos = -2

// cursor is one matcher's search of one text from left to right. A
// search from p that found an occurrence at s also answers any later
// search from p' ≤ s, and one that found nothing answers every later
// search, so a text is scanned about once however many ids it holds. Over
// few ids, it keeps each id's next occurrence (bestFew), so that one id
// named often does not make the others be searched again each time.
type cursor struct {
	m      *matcher
	b      []byte
	hit    match
	ok     bool
	primed bool
	at     []int // per id of m.few
	// it is the automaton's one iterator over b[itOff:], kept from
	// search to search (nextAC); once made, the prefilter is no longer
	// used.
	it    ahocorasick.Iter
	itOff int
}

// next returns the occurrence in b that starts first at or after from,
// the longest one starting there; from must not decrease between calls.
func (c *cursor) next(from int) (match, bool) {
	if c.primed && !(c.ok && c.hit.start < from) {
		return c.hit, c.ok
	}
	c.primed = true
	switch {
	case c.m == nil || from >= len(c.b):
		c.hit, c.ok = match{}, false
	case c.m.few != nil:
		if c.at == nil {
			c.at = make([]int, len(c.m.few))
			for i := range c.at {
				c.at[i] = unknownPos
			}
		}
		c.hit, c.ok = c.m.bestFew(c.b, from, c.at)
	case c.m.pre != nil && c.it == nil:
		m, ok, stop, done := c.m.pre.next(c.b, from)
		if done {
			c.hit, c.ok = m, ok
			break
		}
		c.itOff = stop
		c.hit, c.ok = c.nextAC(stop)
	default:
		c.hit, c.ok = c.nextAC(from)
	}
	return c.hit, c.ok
}

// nextAC is next over the automaton, through the cursor's one iterator
// over b.
// After a match at s the library's iterator searches again from s+1, as
// a fresh search from s+1 would; the cursor's last match started before
// from, so the iterator stands at or before from, and the first match it
// then yields that starts at or after from is the leftmost-longest of
// b[from:]: no match starts between where it stood and that one. Matches
// starting before from (overlapping the last one) are passed over. One
// iterator per text, instead of one per match, saves its allocations
// and its prefilter's warm-up at every match. The iterator may start
// at itOff > 0 when the prefilter gave way there: no id starts between
// the search's from and itOff, so the same reasoning holds.
func (c *cursor) nextAC(from int) (match, bool) {
	if c.it == nil {
		c.it = c.m.ac.IterByte(c.b[c.itOff:])
	}
	for x := c.it.Next(); x != nil; x = c.it.Next() {
		if s := c.itOff + x.Start(); s >= from {
			return match{start: s, end: c.itOff + x.End(), pattern: x.Pattern()}, true
		}
	}
	return match{}, false
}
