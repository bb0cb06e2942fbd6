package enforce

import (
	"bytes"
	"slices"
)

// prefilter finds a large catalog's ids without the automaton where it
// can: every id is at least off+1 bytes long, and the byte at off of each
// is in set, chosen over all offsets to be the rarest in answers
// (rareRank). Only a position s where b[s+off] is in set can start an id;
// there the ids of each length, longest first, are looked up in byID.
// Text that names no id is read at memchr speed when set holds one byte,
// a table lookup per byte otherwise, and never looked at by the
// automaton. It is immutable and safe for concurrent use.
type prefilter struct {
	off  int
	set  [256]bool
	one  int // the only byte of set, or -1
	lens []int
	byID map[string]int
}

// maxPrefilterLens is the most distinct id lengths a prefilter verifies
// by lookup; a catalog with more is searched by the automaton alone.
const maxPrefilterLens = 16

// newPrefilter builds the prefilter of ids, numbered as the automaton's
// patterns, or returns nil when they have too many lengths.
func newPrefilter(ids []string) *prefilter {
	p := &prefilter{byID: make(map[string]int, len(ids)), one: -1}
	minLen := len(ids[0])
	for i, id := range ids {
		p.byID[id] = i
		minLen = min(minLen, len(id))
		if !slices.Contains(p.lens, len(id)) {
			if len(p.lens) == maxPrefilterLens {
				return nil
			}
			p.lens = append(p.lens, len(id))
		}
	}
	slices.Sort(p.lens)
	slices.Reverse(p.lens)
	best := -1
	for off := range minLen {
		var set [256]bool
		cost := 0
		for _, id := range ids {
			if c := id[off]; !set[c] {
				set[c], cost = true, cost+rareRank(c)+1
			}
		}
		if best < 0 || cost < best {
			best, p.off, p.set = cost, off, set
		}
	}
	if in := setBytes(&p.set); len(in) == 1 {
		p.one = int(in[0])
	}
	return p
}

// setBytes lists the bytes of set.
func setBytes(set *[256]bool) []byte {
	var out []byte
	for c, in := range set {
		if in {
			out = append(out, byte(c))
		}
	}
	return out
}

// candidate returns the first position s ≥ from at which an id could
// start (b[s+off] in set), or -1.
func (p *prefilter) candidate(b []byte, from int) int {
	i := from + p.off
	if i >= len(b) {
		return -1
	}
	if p.one >= 0 {
		j := bytes.IndexByte(b[i:], byte(p.one))
		if j < 0 {
			return -1
		}
		return from + j
	}
	for ; i < len(b); i++ {
		if p.set[b[i]] {
			return i - p.off
		}
	}
	return -1
}

// at returns the longest id that starts at s in b, if any.
func (p *prefilter) at(b []byte, s int) (match, bool) {
	for _, n := range p.lens {
		if s+n > len(b) {
			continue
		}
		if i, ok := p.byID[string(b[s:s+n])]; ok {
			return match{start: s, end: s + n, pattern: i}, true
		}
	}
	return match{}, false
}

// next returns the leftmost-longest id at or after from in b, as the
// automaton would, and done true; or, when the candidates turn out
// dense (more than one false one per 16 bytes read), where the search
// stopped, with no id starting in [from, stop), and done false, for the
// automaton to go on from there.
func (p *prefilter) next(b []byte, from int) (m match, found bool, stop int, done bool) {
	fails := 0
	for s := p.candidate(b, from); s >= 0; s = p.candidate(b, s+1) {
		if m, ok := p.at(b, s); ok {
			return m, true, 0, true
		}
		if fails++; fails > 4+(s-from)/16 {
			return match{}, false, s + 1, false
		}
	}
	return match{}, false, 0, true
}
