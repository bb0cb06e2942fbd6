package jsonrpc

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Names is a tree of member names that a reader of a JSON text finds by
// their exact spelling, each with the Names read in its value (in each
// element, when the value is an array). A reader that matches names
// case-insensitively, as encoding/json does, also takes "Result" or
// "ſtatus" for such a name, one that matches exactly does not: so
// Strict refuses, in every object the tree describes, a member whose
// name differs only in case from one of the names read there.
//
// Build it with NewNames. It is immutable and safe for concurrent use; a
// nil *Names reads nothing.
type Names struct {
	names []readName // sorted by fold, then name
	// sketch has foldBit set for the fold of each name: a name whose bit
	// is clear folds to none of them, and is not looked up.
	sketch uint64
}

// readName is one name of a Names, with its folded form.
type readName struct {
	name, fold string
	inner      *Names
}

// NewNames returns the tree whose names are the keys of members, each
// with the tree read in its value (nil when nothing in it is read).
func NewNames(members map[string]*Names) *Names {
	n := &Names{names: make([]readName, 0, len(members))}
	for name, inner := range members {
		fold := string(appendFolded(nil, []byte(name)))
		n.names = append(n.names, readName{name: name, fold: fold, inner: inner})
		n.sketch |= foldBit([]byte(fold))
	}
	slices.SortFunc(n.names, func(a, b readName) int {
		return cmp.Or(strings.Compare(a.fold, b.fold), strings.Compare(a.name, b.name))
	})
	return n
}

// Strict checks JSON texts with exactly the checks Decode applies to a
// whole body before it decodes anything: RFC 8259 grammar with nothing
// but whitespace after the value (ErrParse), valid UTF-8 without lone
// surrogate escapes (ErrInvalidUTF8), nesting no deeper than its depth
// (ErrTooDeep), and no object at any depth repeating a member name or
// holding two that differ only in case (ErrDuplicateKey,
// ErrCaseVariantKey). With Names, a member of an object they describe
// whose name differs only in case from a name read there is refused too
// (ErrMisspelledKey); they apply to a text that is an object, and to
// each element of one that is an array.
//
// It is for JSON the gateway reads without decoding it as a request, such
// as an agent's answers, so that it is held to the same rules: every
// reader reads a text it accepts the same way. It is built once for a hot
// path (NewStrict) and keeps the checker's scratch memory between checks,
// so a check of a typical text allocates nothing. It is safe for
// concurrent use.
type Strict struct {
	maxDepth int
	names    *Names
	scratch  sync.Pool // *checkScratch
}

// NewStrict returns a Strict that allows nesting maxDepth deep, which must
// be within 1..MaxDepthCeiling (ErrInvalidLimits), and reads names (nil
// for none).
func NewStrict(maxDepth int, names *Names) (*Strict, error) {
	if maxDepth < 1 || maxDepth > MaxDepthCeiling {
		return nil, &LimitError{Field: "max_depth", Msg: fmt.Sprintf("%d is outside 1..%d", maxDepth, MaxDepthCeiling)}
	}
	return &Strict{maxDepth: maxDepth, names: names}, nil
}

// Check checks text, one JSON value of at most MaxBodyBytesCeiling bytes
// (ErrBodyTooLarge). It decodes nothing and keeps nothing of text.
func (s *Strict) Check(text []byte) error {
	_, err := s.CheckLoose(text)
	return err
}

// CheckLoose is Check, which also reports, in the same pass, whether text
// holds whitespace outside its string literals (loose): whether
// json.Compact would change a text the check accepts. loose is
// meaningful only when err is nil.
func (s *Strict) CheckLoose(text []byte) (loose bool, err error) {
	return s.check(text, nil)
}

// check is CheckLoose, recording text's layout into l when it is not nil.
func (s *Strict) check(text []byte, l *Layout) (loose bool, err error) {
	if len(text) > MaxBodyBytesCeiling {
		return false, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, MaxBodyBytesCeiling)
	}
	scratch, _ := s.scratch.Get().(*checkScratch)
	if scratch == nil {
		scratch = new(checkScratch)
	}
	c := newCheckerIn(scratch, text, s.maxDepth)
	c.spelling, c.layout = s.names, l
	err = c.run()
	s.scratch.Put(scratch)
	return c.loose, err
}

// spelled checks the name ref, just recorded, against the names read in
// its object, and returns the names read in its value. A name read there
// exactly is accepted even when another name read there folds like it.
func (c *checker) spelled(names *Names, ref nameRef) (*Names, error) {
	fold := c.bytesOf(ref.fold)
	if names.sketch&foldBit(fold) == 0 {
		return nil, nil
	}
	var variant *readName
	exact := c.exactOf(ref)
	for i := range names.names {
		n := &names.names[i]
		switch {
		case n.fold != string(fold):
		case n.name == string(exact):
			return n.inner, nil
		case variant == nil:
			variant = n
		}
	}
	if variant == nil {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: %s must be spelled %s at offset %d",
		ErrMisspelledKey, quoteName(exact), strconv.Quote(variant.name), ref.pos)
}

// foldBit is one bit of 64 chosen by a folded name's length and its first
// and last bytes.
func foldBit(fold []byte) uint64 {
	h := uint(len(fold))
	if len(fold) > 0 {
		h = h*31 + uint(fold[0])*7 + uint(fold[len(fold)-1])
	}
	return 1 << (h & 63)
}
