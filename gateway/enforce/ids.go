package enforce

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/capgate/capgate/captoken"
)

// Ids never leak. A caller names resources only by the opaque handles of
// its capability; the upstream acts on real ids. On the way in, handles
// become real ids (RewriteArguments for arguments, Scope.Inbound for free
// text); on the way out, an IDMap rewrites every real id of the
// capability's resources that appears in any string of the answer back
// to the caller's handle. A real id the gateway knows (from the target's
// catalog) that maps to no handle of the caller's capability is redacted
// or refuses the answer. Ids are matched wherever they occur, even inside
// a longer word: a caller may see a longer word garbled, never an id.
// All of them are found in one pass over the text, leftmost first and
// longest first at one place, by a matcher over the catalog built once
// per target (NewCatalog: an automaton behind a prefilter that skips to
// where an id could start, or for a handful of ids a search of each by
// its rarest byte) and one over the capability's ids the catalog lacks,
// if any.

// Known is what the gateway knows of a target beyond one capability: the
// real ids of its catalog, and what becomes of one the capability does
// not designate.
type Known struct {
	// IDs are the catalog's real resource ids; empty ids are ignored.
	IDs []string
	// Placeholder replaces an id the capability does not designate.
	Placeholder string
	// Refuse refuses an answer carrying such an id instead.
	Refuse bool
}

// Catalog is Known compiled once per target: a matcher over its ids, so
// that finding them in an answer costs the same whatever their number.
// It is immutable and safe for concurrent use.
type Catalog struct {
	// ids are the catalog's ids, once each, numbered as the matcher's
	// patterns; index numbers them back.
	ids         []string
	index       map[string]int
	placeholder string
	refuse      bool
	match       *matcher
}

// NewCatalog compiles k. It costs time and memory in the number of ids:
// build it once per target, not per call. A catalog of a handful of ids
// is searched id by id instead, which needs no automaton.
func NewCatalog(k Known) *Catalog {
	c := &Catalog{index: make(map[string]int, len(k.IDs)), placeholder: k.Placeholder, refuse: k.Refuse}
	for _, id := range k.IDs {
		if _, dup := c.index[id]; id != "" && !dup {
			c.index[id] = len(c.ids)
			c.ids = append(c.ids, id)
		}
	}
	if len(c.ids) <= fewCatalog {
		c.match = newFewMatcher(c.ids)
	} else {
		c.match = newMatcher(c.ids)
	}
	return c
}

// fewCatalog is the largest catalog searched id by id (newFewMatcher)
// rather than by the automaton: over a handful of ids, one skip to each
// one's rarest byte reads an answer faster than the automaton's one pass,
// which looks at every byte.
const fewCatalog = 8

// IDMap is the rewrite of answers to a call scoped to a capability: each
// real id of the capability becomes its handle, every other id of the
// catalog the placeholder (or a refusal). It is immutable once built and
// safe for concurrent use.
type IDMap struct {
	cat *Catalog
	// held are the capability's ids that the catalog has, by pattern,
	// with their handles.
	held []heldID
	// own matches the capability's ids the catalog lacks; ownHandles
	// are their handles, by pattern.
	own        *matcher
	ownHandles []string
}

// heldID is a catalog id the capability holds a handle for.
type heldID struct {
	pattern int
	handle  string
}

// IDMap builds the rewrites of an answer to a call scoped to s, over the
// catalog c: each of the capability's real ids to its handle (the first
// handle, if two name one id), then every other id of c to the
// placeholder (or a refusal). Its cost is in the capability's ids, not
// the catalog's.
func (s *Scope) IDMap(c *Catalog) *IDMap {
	m := &IDMap{cat: c}
	var own []string
	for _, r := range s.Resources {
		if p, ok := c.index[r.ID]; ok && !slices.ContainsFunc(m.held, func(h heldID) bool { return h.pattern == p }) {
			m.held = append(m.held, heldID{pattern: p, handle: r.Handle})
		} else if !ok && r.ID != "" && !slices.Contains(own, r.ID) {
			own, m.ownHandles = append(own, r.ID), append(m.ownHandles, r.Handle)
		}
	}
	slices.SortFunc(m.held, func(x, y heldID) int { return cmp.Compare(x.pattern, y.pattern) })
	m.own = newFewMatcher(own)
	return m
}

// heldFor returns the handle of the catalog's id numbered pattern, if
// the capability holds it. A capability holds a handful of ids, read one
// by one; more are searched by halves.
func (m *IDMap) heldFor(pattern int) (string, bool) {
	if len(m.held) <= 8 {
		for _, h := range m.held {
			if h.pattern == pattern {
				return h.handle, true
			}
		}
		return "", false
	}
	if i, ok := slices.BinarySearchFunc(m.held, pattern, func(h heldID, p int) int { return cmp.Compare(h.pattern, p) }); ok {
		return m.held[i].handle, true
	}
	return "", false
}

// hit is an occurrence of an id the map rewrites, and what it becomes.
type hit struct {
	start, end int
	with       string
	refuse     bool
}

// scan is one search of a text for the map's ids, left to right: the
// catalog's and the capability's own, each scanned about once.
type scan struct {
	m        *IDMap
	cat, own cursor
}

func (m *IDMap) scan(b []byte) *scan {
	return &scan{m: m, cat: cursor{m: m.cat.match, b: b}, own: cursor{m: m.own, b: b}}
}

// next returns the occurrence that starts first at or after from, the
// longest one starting there: wherever it occurs, even inside a longer
// word, since an id glued to other text is still the id.
func (sc *scan) next(from int) (hit, bool) {
	c, okc := sc.cat.next(from)
	o, oko := sc.own.next(from)
	if oko && (!okc || o.start < c.start || o.start == c.start && o.end > c.end) {
		return hit{start: o.start, end: o.end, with: sc.m.ownHandles[o.pattern]}, true
	}
	if !okc {
		return hit{}, false
	}
	if h, ok := sc.m.heldFor(c.pattern); ok {
		return hit{start: c.start, end: c.end, with: h}, true
	}
	return hit{start: c.start, end: c.end, with: sc.m.cat.placeholder, refuse: sc.m.cat.refuse}, true
}

// Replace replaces every occurrence of each id in str, leftmost first and
// longest first where two start at one place: wherever it occurs, even
// inside a longer word, since an id glued to other text is still the id.
// It reports whether an id whose answer is refused was found; the string
// is then empty.
func (m *IDMap) Replace(str string) (string, bool) {
	sc := m.scan([]byte(str))
	var out strings.Builder
	last := 0
	for h, ok := sc.next(0); ok; h, ok = sc.next(last) {
		if h.refuse {
			return "", true
		}
		if last == 0 {
			out.Grow(len(str) + len(str)/8)
		}
		out.WriteString(str[last:h.start])
		out.WriteString(h.with)
		last = h.end
	}
	if last == 0 {
		return str, false
	}
	out.WriteString(str[last:])
	return out.String(), false
}

// AppendReplace appends b to dst with each id replaced as Replace replaces
// it, without converting b to a string. It returns dst as given and false
// for changed when b holds no id, and refused when an id whose answer is
// refused was found. asIs, when given, must accept every replacement
// written (the caller's encoding writes it as it is); when one is not,
// ok is false and dst is returned as given, for the caller to use Replace.
func (m *IDMap) AppendReplace(dst, b []byte, asIs func(string) bool) (out []byte, changed, refused, ok bool) {
	sc := m.scan(b)
	mark, last := len(dst), 0
	accepted := "" // the last replacement asIs accepted: an id named often is tested once
	for h, found := sc.next(0); found; h, found = sc.next(last) {
		if h.refuse {
			return dst[:mark], false, true, true
		}
		if asIs != nil && h.with != accepted {
			if !asIs(h.with) {
				return dst[:mark], false, false, false
			}
			accepted = h.with
		}
		dst = append(dst, b[last:h.start]...)
		dst = append(dst, h.with...)
		last, changed = h.end, true
	}
	if !changed {
		return dst, false, false, true
	}
	return append(dst, b[last:]...), true, false, true
}

// Index returns where the first of the map's ids in b starts, as written,
// or -1 if none occurs: one pass over b, whatever the number of ids.
func (m *IDMap) Index(b []byte) int {
	if h, ok := m.scan(b).next(0); ok {
		return h.start
	}
	return -1
}

// In reports whether one of the map's ids occurs in b as written.
func (m *IDMap) In(b []byte) bool { return m.Index(b) >= 0 }

// contains reports whether str holds one of the map's ids.
func (m *IDMap) contains(str string) bool { return m.In([]byte(str)) }

// handleWord finds handle-shaped words in what a caller sends.
var handleWord = regexp.MustCompile(captoken.HandlePrefix + `[A-Za-z0-9_-]+`)

// Inbound rewrites, in a string a caller sends on a call scoped to s,
// each handle of the capability to its real id. A handle-shaped word that
// is not one of the capability's handles, or a real id in known (as built
// by s.IDMap), is refused: the caller names resources only by the handles
// it holds.
func (s *Scope) Inbound(known *IDMap, str string) (string, *Refusal) {
	if known.contains(str) {
		return "", namedByID()
	}
	var bad bool
	str = handleWord.ReplaceAllStringFunc(str, func(h string) string {
		id, ok := s.Resources.ID(h)
		bad = bad || !ok || !s.Claims.HasHandle(h)
		return id
	})
	if bad {
		return "", notInCapability()
	}
	return str, nil
}
