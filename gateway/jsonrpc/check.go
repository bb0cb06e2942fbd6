package jsonrpc

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// checker validates one JSON text in a single pass: RFC 8259 grammar, UTF-8,
// nesting depth, and member-name uniqueness in every object. It decodes
// nothing but member names, and keeps those only while their object is open.
type checker struct {
	data     []byte
	pos      int
	depth    int
	maxDepth int

	// names holds the member names of every open object, innermost last;
	// arena holds their exact and folded bytes. Both are truncated when an
	// object closes, so their size is bounded by one path through the text.
	names []nameRef
	arena []byte

	// When maxElems > 0 and the text is an array, the span of each of its
	// elements is recorded in elems, and more than maxElems fails.
	maxElems int
	elems    []span

	// spelling, when not nil, are the names the text's reader reads by
	// exact spelling (Strict); Decode reads no such tree.
	spelling *Names

	// loose is set when whitespace was skipped outside a string literal:
	// json.Compact would change the text.
	loose bool

	// layout, when not nil, records where the text's literals and
	// containers are (Strict.CheckLayout).
	layout *Layout
}

// checkScratch is the checker's initial storage, sized so the names of a
// typical request need no further allocation.
type checkScratch struct {
	names [24]nameRef
	arena [512]byte
}

// newChecker returns a checker for data.
func newChecker(data []byte, maxDepth int) checker {
	return newCheckerIn(new(checkScratch), data, maxDepth)
}

// newCheckerIn returns a checker for data that starts in s.
func newCheckerIn(s *checkScratch, data []byte, maxDepth int) checker {
	return checker{data: data, maxDepth: maxDepth, names: s.names[:0], arena: s.arena[:0]}
}

// span is a half-open byte range.
type span struct{ start, end int }

// run checks the whole text.
func (c *checker) run() error {
	c.skipWS()
	if err := c.value(c.spelling); err != nil {
		return err
	}
	c.skipWS()
	if c.pos != len(c.data) {
		return c.syntax("data after the top-level value")
	}
	return nil
}

// value checks the value at c.pos; names, when not nil, are the names
// read by exact spelling in it (in each element of an array).
func (c *checker) value(names *Names) error {
	if c.pos >= len(c.data) {
		return c.syntax("")
	}
	switch b := c.data[c.pos]; b {
	case '{':
		return c.object(names)
	case '[':
		return c.array(names)
	case '"':
		start := c.pos
		_, escaped, err := c.str()
		c.layout.literal(start, c.pos, escaped, false)
		return err
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	default:
		if b == '-' || isDigit(b) {
			return c.number()
		}
		return c.syntax("invalid character starting a value")
	}
}

func (c *checker) enter() error {
	c.depth++
	if c.depth > c.maxDepth {
		return fmt.Errorf("%w: more than %d levels at offset %d", ErrTooDeep, c.maxDepth, c.pos)
	}
	c.pos++ // the opening bracket
	c.skipWS()
	return nil
}

func (c *checker) object(names *Names) error {
	rec := c.layout.open(c.pos)
	if err := c.enter(); err != nil {
		return err
	}
	first, mark := len(c.names), len(c.arena)
	if c.peek() == '}' {
		c.pos++
		c.depth--
		c.layout.close(rec, c.pos)
		return nil
	}
	for {
		if c.peek() != '"' {
			return c.syntax("expected a member name")
		}
		inner, err := c.name(names)
		if err != nil {
			return err
		}
		c.skipWS()
		if c.peek() != ':' {
			return c.syntax("expected ':' after a member name")
		}
		c.pos++
		c.skipWS()
		if err := c.value(inner); err != nil {
			return err
		}
		c.skipWS()
		switch c.peek() {
		case ',':
			c.pos++
			c.skipWS()
		case '}':
			c.pos++
			c.depth--
			c.layout.close(rec, c.pos)
			err := c.uniqueNames(first)
			c.names, c.arena = c.names[:first], c.arena[:mark]
			return err
		default:
			return c.syntax("expected ',' or '}' in an object")
		}
	}
}

func (c *checker) array(names *Names) error {
	rec := c.layout.open(c.pos)
	if err := c.enter(); err != nil {
		return err
	}
	record := c.maxElems > 0 && c.depth == 1
	if c.peek() == ']' {
		c.pos++
		c.depth--
		c.layout.close(rec, c.pos)
		return nil
	}
	for {
		start := c.pos
		if err := c.value(names); err != nil {
			return err
		}
		if record {
			if len(c.elems) == c.maxElems {
				return fmt.Errorf("%w: more than %d elements", ErrBatchTooLarge, c.maxElems)
			}
			c.elems = append(c.elems, span{start, c.pos})
		}
		c.skipWS()
		switch c.peek() {
		case ',':
			c.pos++
			c.skipWS()
		case ']':
			c.pos++
			c.depth--
			c.layout.close(rec, c.pos)
			return nil
		default:
			return c.syntax("expected ',' or ']' in an array")
		}
	}
}

// name scans a member name and records its exact and folded forms. With
// names, the names read by exact spelling in the object, it returns those
// read in the member's value.
func (c *checker) name(names *Names) (*Names, error) {
	pos := c.pos
	raw, escaped, err := c.str()
	if err != nil {
		return nil, err
	}
	c.layout.literal(pos, c.pos, escaped, true)
	// Neither unescaping nor folding makes a name longer, so this one
	// reservation covers both appends below.
	c.arena = reserve(c.arena, 2*len(raw))
	ref := nameRef{pos: int32(pos), exact: span32{int32(pos + 1), int32(pos + 1 + len(raw))}}
	exact := raw
	if escaped {
		start := len(c.arena)
		c.arena = appendUnescaped(c.arena, raw)
		ref.inArena, ref.exact = true, span32{int32(start), int32(len(c.arena))}
		exact = c.arena[start:]
	}
	start := len(c.arena)
	c.arena = appendFolded(c.arena, exact)
	ref.fold = span32{int32(start), int32(len(c.arena))}
	c.names = append(reserve(c.names, 1), ref)
	if names == nil {
		return nil, nil
	}
	return c.spelled(names, ref)
}

// str scans the string at c.pos. It returns the bytes between the quotes
// and whether they hold an escape.
func (c *checker) str() (raw []byte, escaped bool, err error) {
	data := c.data
	i := c.pos + 1
	for i < len(data) {
		i = plainEnd(data, i)
		if i >= len(data) {
			break
		}
		switch b := data[i]; {
		case b == '"':
			raw = data[c.pos+1 : i]
			c.pos = i + 1
			return raw, escaped, nil
		case b == '\\':
			escaped = true
			n, err := c.escape(i)
			if err != nil {
				return nil, false, err
			}
			i += n
		case b < 0x20:
			c.pos = i
			return nil, false, c.syntax("control character in a string")
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false, fmt.Errorf("%w at offset %d", ErrInvalidUTF8, i)
			}
			i += n
		}
	}
	c.pos = len(data)
	return nil, false, c.syntax("")
}

// escape checks the escape sequence at offset i and returns its length.
func (c *checker) escape(i int) (int, error) {
	data := c.data
	if i+1 >= len(data) {
		c.pos = len(data)
		return 0, c.syntax("")
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
	default:
		c.pos = i
		return 0, c.syntax("invalid escape")
	}
	r, ok := hex4(data[i+2:])
	if !ok {
		c.pos = i
		return 0, c.syntax("invalid \\u escape")
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, fmt.Errorf("%w: lone low surrogate at offset %d", ErrInvalidUTF8, i)
	case r >= 0xD800 && r <= 0xDBFF:
		if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if lo, ok := hex4(data[i+8:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 12, nil
			}
		}
		return 0, fmt.Errorf("%w: lone high surrogate at offset %d", ErrInvalidUTF8, i)
	}
	return 6, nil
}

func (c *checker) number() error {
	data, i := c.data, c.pos
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && isDigit(data[i]):
		i = skipDigits(data, i)
	default:
		c.pos = i
		return c.syntax("invalid number")
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			c.pos = i
			return c.syntax("invalid number")
		}
		i = skipDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			c.pos = i
			return c.syntax("invalid number")
		}
		i = skipDigits(data, i)
	}
	c.pos = i
	return nil
}

func (c *checker) literal(lit string) error {
	if !bytes.HasPrefix(c.data[c.pos:], []byte(lit)) {
		return c.syntax("invalid literal")
	}
	c.pos += len(lit)
	return nil
}

func (c *checker) skipWS() {
	start := c.pos
	for c.pos < len(c.data) && isSpace(c.data[c.pos]) {
		c.pos++
	}
	if c.pos != start {
		c.loose = true
	}
}

// peek returns the byte at c.pos, or 0 at the end of the text.
func (c *checker) peek() byte {
	if c.pos < len(c.data) {
		return c.data[c.pos]
	}
	return 0
}

func (c *checker) syntax(what string) error {
	if c.pos >= len(c.data) {
		return fmt.Errorf("%w: unexpected end of input", ErrParse)
	}
	if what == "" {
		what = "unexpected character"
	}
	return fmt.Errorf("%w: %s at offset %d", ErrParse, what, c.pos)
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// isPlain reports the bytes a string may hold as they are: printable ASCII
// other than the quote and the backslash.
func isPlain(b byte) bool { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\' }
