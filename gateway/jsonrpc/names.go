package jsonrpc

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// nameRef locates one member name: its folded form in checker.arena, its
// exact form in the arena when it had to be unescaped and in the text
// otherwise. Offsets are int32 to keep hostile objects of many members small in
// memory; Limits.Validate caps bodies well below 2 GiB.
type nameRef struct {
	exact, fold span32
	pos         int32 // offset of the name in the text
	inArena     bool  // exact is in the arena
}

// span32 is a half-open byte range.
type span32 struct{ start, end int32 }

// reserve returns s with room for n more elements, doubling its capacity
// when it must grow, so the total allocated stays within twice the final
// size (append grows large slices by only 1.25x).
func reserve[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s
	}
	grown := make(S, len(s), 2*cap(s)+n)
	copy(grown, s)
	return grown
}

// pairwiseMax is the largest object whose names are compared pair by pair;
// larger objects are sorted, so the cost stays O(n log n) for hostile input.
const pairwiseMax = 16

// uniqueNames checks that the names c.names[first:], the members of the
// object that just closed, hold no duplicate and no case variant.
func (c *checker) uniqueNames(first int) error {
	names := c.names[first:]
	if len(names) < 2 {
		return nil
	}
	if len(names) <= pairwiseMax {
		for j := 1; j < len(names); j++ {
			for i := range j {
				if err := c.sameName(names[i], names[j]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	slices.SortFunc(names, func(a, b nameRef) int {
		if d := bytes.Compare(c.bytesOf(a.fold), c.bytesOf(b.fold)); d != 0 {
			return d
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i := 1; i < len(names); i++ {
		if err := c.sameName(names[i-1], names[i]); err != nil {
			return err
		}
	}
	return nil
}

// sameName returns an error when a and b fold to the same name; b is the
// later of the two in the text.
func (c *checker) sameName(a, b nameRef) error {
	if !bytes.Equal(c.bytesOf(a.fold), c.bytesOf(b.fold)) {
		return nil
	}
	if a.pos > b.pos {
		a, b = b, a
	}
	an, bn := c.exactOf(a), c.exactOf(b)
	if bytes.Equal(an, bn) {
		return fmt.Errorf("%w: %s at offset %d", ErrDuplicateKey, quoteName(bn), b.pos)
	}
	return fmt.Errorf("%w: %s and %s at offset %d", ErrCaseVariantKey, quoteName(an), quoteName(bn), b.pos)
}

func (c *checker) bytesOf(s span32) []byte { return c.arena[s.start:s.end] }

func (c *checker) exactOf(n nameRef) []byte {
	if n.inArena {
		return c.arena[n.exact.start:n.exact.end]
	}
	return c.data[n.exact.start:n.exact.end]
}

// appendFolded appends the case-folded form of the UTF-8 name to dst: two
// names fold to the same bytes exactly when bytes.EqualFold holds, which is
// how encoding/json matches member names to struct fields.
func appendFolded(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		b := name[i]
		if b < utf8.RuneSelf {
			if 'a' <= b && b <= 'z' {
				b -= 'a' - 'A'
			}
			dst = append(dst, b)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

// foldRune returns the smallest rune of r's simple case-folding orbit.
func foldRune(r rune) rune {
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			return next
		}
		r = next
	}
}

// appendUnescaped appends the decoded contents of a string the checker has
// accepted (raw is the bytes between the quotes) to dst.
func appendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		b := raw[i]
		if b != '\\' {
			dst = append(dst, b)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(raw[i+2:])
			if utf16IsHigh(r) {
				lo, _ := hex4(raw[i+8:])
				r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			i += 6
			continue
		default: // '"', '\\', '/'
			dst = append(dst, raw[i+1])
		}
		i += 2
	}
	return dst
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

// hex4 decodes four hexadecimal digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, x := range b[:4] {
		switch {
		case '0' <= x && x <= '9':
			x -= '0'
		case 'a' <= x && x <= 'f':
			x -= 'a' - 10
		case 'A' <= x && x <= 'F':
			x -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(x)
	}
	return r, true
}

// maxQuoted bounds how much of a caller's member name an error repeats.
const maxQuoted = 64

// quoteName quotes a member name for an error message, cut to maxQuoted
// bytes on a rune boundary.
func quoteName(name []byte) string {
	if len(name) <= maxQuoted {
		return strconv.Quote(string(name))
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.Quote(string(name[:cut])) + "…"
}
