package mcp

import (
	"fmt"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON pointer (RFC 6901) into a tool's arguments:
// the reference tokens, unescaped, from the arguments object down. The
// config names each argument that carries a resource with one, for
// example "/path" or "/files/0".
type Pointer struct {
	tokens []string
}

// maxPointerBytes bounds a pointer's text; a config has no use for more.
const maxPointerBytes = 1024

// ParsePointer parses a JSON pointer. It must name a member inside the
// arguments, so the empty pointer (the whole document) is refused, as are
// a pointer not starting with "/" and an escape other than "~0" and
// "~1". Errors wrap ErrPointer.
func ParsePointer(s string) (Pointer, error) {
	switch {
	case s == "":
		return Pointer{}, fmt.Errorf("%w: empty: it must name an argument, such as /path", ErrPointer)
	case len(s) > maxPointerBytes:
		return Pointer{}, fmt.Errorf("%w: longer than %d bytes", ErrPointer, maxPointerBytes)
	case s[0] != '/':
		return Pointer{}, fmt.Errorf("%w: %q does not start with /", ErrPointer, s)
	}
	raw := strings.Split(s[1:], "/")
	tokens := make([]string, len(raw))
	for i, t := range raw {
		u, err := unescapeToken(t)
		if err != nil {
			return Pointer{}, fmt.Errorf("%w: %q: %w", ErrPointer, s, err)
		}
		tokens[i] = u
	}
	return Pointer{tokens: tokens}, nil
}

// unescapeToken undoes "~1" (a slash) and then "~0" (a tilde), in that
// order as RFC 6901 requires; any other "~" is an error.
func unescapeToken(t string) (string, error) {
	if !strings.Contains(t, "~") {
		return t, nil
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '~' {
			b.WriteByte(t[i])
			continue
		}
		if i+1 == len(t) || (t[i+1] != '0' && t[i+1] != '1') {
			return "", fmt.Errorf("bad escape at byte %d", i)
		}
		if t[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), nil
}

// Tokens returns the pointer's reference tokens, unescaped; the caller
// must not change them.
func (p Pointer) Tokens() []string { return p.tokens }

// String returns the pointer as written in RFC 6901 form.
func (p Pointer) String() string {
	var b strings.Builder
	for _, t := range p.tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// Index reads token i as an array index: decimal digits without a
// leading zero (RFC 6901), within int. ok is false for anything else,
// "-" included: a pointer naming a resource names one that exists.
func Index(token string) (int, bool) {
	if token == "" || (len(token) > 1 && token[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(token); i++ {
		if token[i] < '0' || token[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(token)
	return n, err == nil
}
