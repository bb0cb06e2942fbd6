package jsonrpc

import (
	"bytes"
	"fmt"
)

// methodName is the member WithMethod rewrites.
const methodName = "method"

// WithMethod returns a copy of the request element elem (one Decode
// accepted, or one the gateway built) whose top-level "method" member
// has the string method as its value. Every other byte is kept as it
// is: the other members, their order, the whitespace, the escapes of the
// member's name. elem itself is never modified.
//
// It refuses an element that is not an object (ErrInvalidRequest), whose
// "method" member is missing or not a string (ErrInvalidRequest), written
// twice (ErrDuplicateKey), or beside a case variant of its name
// ("Method", ErrCaseVariantKey): what it returns holds one method
// member, under the same rules Decode checks.
func WithMethod(elem []byte, method string) ([]byte, error) {
	start, end, err := methodValue(elem)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(elem)-(end-start)+len(method)+2)
	out = append(out, elem[:start]...)
	out = AppendString(out, method)
	return append(out, elem[end:]...), nil
}

// methodValue returns where the value of elem's one top-level "method"
// member starts and ends.
func methodValue(elem []byte) (start, end int, err error) {
	o, ok := WalkObject(elem)
	if !ok {
		return 0, 0, fmt.Errorf("%w: not an object", ErrInvalidRequest)
	}
	start = -1
	var buf [16]byte
	for {
		m, ok := o.Next()
		if !ok {
			break
		}
		name := m.Name
		if m.Escaped {
			name = appendUnescaped(buf[:0], name)
		}
		switch {
		case string(name) == methodName && start >= 0:
			return 0, 0, fmt.Errorf("%w: %q at offset %d", ErrDuplicateKey, methodName, m.at)
		case string(name) == methodName:
			start, end = m.at, m.at+len(m.Value)
		case bytes.EqualFold(name, []byte(methodName)):
			return 0, 0, fmt.Errorf("%w: %s beside %q", ErrCaseVariantKey, quoteName(name), methodName)
		}
	}
	switch {
	case o.Err() != nil:
		return 0, 0, o.Err()
	case start < 0:
		return 0, 0, fmt.Errorf("%w: no method member", ErrInvalidRequest)
	case elem[start] != '"':
		return 0, 0, fmt.Errorf("%w: method must be a string", ErrInvalidRequest)
	}
	return start, end, nil
}
