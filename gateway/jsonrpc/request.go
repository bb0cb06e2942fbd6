package jsonrpc

import (
	"encoding/json"
	"fmt"
)

// Version is the only JSON-RPC version accepted and sent.
const Version = "2.0"

// Request is one decoded JSON-RPC 2.0 request object.
//
// ID, Params and Raw are sub-slices of the body given to Decode: they stay
// valid, and correct, only while that body is not modified.
type Request struct {
	// JSONRPC is "2.0" for a valid request and empty when Err is set.
	JSONRPC string
	// ID is the raw id (a string, a number or null), or nil when the request
	// has no id member. An invalid element whose id could be read keeps it,
	// so its error response can carry it.
	ID json.RawMessage
	// Method is the method name, decoded from any escapes. It is empty when
	// Err is set.
	Method string
	// Params is the raw params object or array, or nil when absent or when
	// Err is set.
	Params json.RawMessage
	// Raw is the exact bytes of this element, without surrounding
	// whitespace: the bytes that were checked and that may be forwarded.
	Raw json.RawMessage
	// Err is nil for a valid request. For an element that is not a valid
	// request it wraps ErrInvalidRequest and says why; such an element must
	// be answered with an error and never dispatched.
	Err error

	// checked is Params as Decode checked them, so that
	// Request.UnmarshalParams can tell they were not replaced since.
	checked json.RawMessage
}

// ParamsChecked reports whether r.Params are still the bytes Decode
// checked: valid JSON, valid UTF-8, within the depth limit, with no
// duplicate or case-variant member names at any depth. A caller may then
// scan them without repeating those checks.
func (r Request) ParamsChecked() bool {
	return len(r.Params) > 0 && len(r.checked) == len(r.Params) && &r.Params[0] == &r.checked[0]
}

// IsNotification reports whether r is a valid request without an id, which
// gets no response. An invalid element is never a notification: it is
// always answered.
func (r Request) IsNotification() bool {
	return r.Err == nil && r.ID == nil
}

// Decode checks body and decodes the single request or the batch it holds.
//
// A whole-body problem fails the whole body with a nil slice: a malformed or
// too deep text, invalid UTF-8, a duplicate or case-variant member name at
// any depth (ErrParse, ErrInvalidUTF8, ErrTooDeep, ErrDuplicateKey,
// ErrCaseVariantKey), a body over lim.MaxBodyBytes (ErrBodyTooLarge), an
// empty batch (ErrEmptyBatch) or one over lim.MaxBatch (ErrBatchTooLarge),
// or invalid limits (ErrInvalidLimits). batch reports whether the body is
// an array, also when an error is returned.
//
// Otherwise err is nil and reqs holds one Request per element, in order,
// with Request.Err set on each element that is not a valid request,
// including a single body that is valid JSON but not a request object.
func Decode(body []byte, lim Limits) (reqs []Request, batch bool, err error) {
	if err := lim.Validate(); err != nil {
		return nil, false, err
	}
	return decode(new(checkScratch), body, lim)
}

// decode is Decode under valid limits, with the checker's scratch memory
// in s.
func decode(s *checkScratch, body []byte, lim Limits) (reqs []Request, batch bool, err error) {
	start := skipSpace(body, 0)
	batch = start < len(body) && body[start] == '['
	if int64(len(body)) > lim.MaxBodyBytes {
		return nil, batch, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, lim.MaxBodyBytes)
	}
	c := newCheckerIn(s, body, lim.MaxDepth)
	if batch {
		c.maxElems = lim.MaxBatch
		c.elems = make([]span, 0, min(lim.MaxBatch, 64))
	}
	if err := c.run(); err != nil {
		return nil, batch, err
	}
	if !batch {
		end, _ := valueEnd(body, start)
		return []Request{decodeElement(body[start:end])}, false, nil
	}
	if len(c.elems) == 0 {
		return nil, true, ErrEmptyBatch
	}
	reqs = make([]Request, len(c.elems))
	for i, e := range c.elems {
		reqs[i] = decodeElement(body[e.start:e.end])
	}
	return reqs, true, nil
}

// decodeElement decodes one validated element.
func decodeElement(raw []byte) Request {
	if raw[0] != '{' {
		return Request{Raw: raw, Err: fmt.Errorf("%w: not an object", ErrInvalidRequest)}
	}
	r := Request{Raw: raw}
	var version, meth bool
	var firstErr error
	var nameBuf [16]byte
	it, _ := WalkObject(raw)
	for {
		m, ok := it.Next()
		if !ok {
			break
		}
		name, v := m.Name, m.Value
		if m.Escaped {
			name = appendUnescaped(nameBuf[:0], name)
		}
		var err error
		switch string(name) {
		case "jsonrpc":
			version, err = true, checkVersion(v)
		case "id":
			r.ID, err = checkID(v)
		case "method":
			meth = true
			r.Method, err = decodeMethod(v)
		case "params":
			r.Params, err = checkParams(v)
		default:
			err = fmt.Errorf("%w: unknown member %s", ErrInvalidRequest, quoteName(name))
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	switch {
	case firstErr != nil:
	case !version:
		firstErr = fmt.Errorf("%w: no jsonrpc member", ErrInvalidRequest)
	case !meth:
		firstErr = fmt.Errorf("%w: no method member", ErrInvalidRequest)
	}
	if firstErr != nil {
		return Request{ID: r.ID, Raw: raw, Err: firstErr}
	}
	r.JSONRPC = Version
	r.checked = r.Params
	return r
}

func checkVersion(v []byte) error {
	if v[0] == '"' {
		raw := v[1 : len(v)-1]
		if string(raw) == Version {
			return nil
		}
		var buf [16]byte
		if len(raw) < 32 && string(appendUnescaped(buf[:0], raw)) == Version {
			return nil
		}
	}
	return fmt.Errorf("%w: jsonrpc must be \"2.0\"", ErrInvalidRequest)
}

// checkID accepts a string, a number or null; anything else reads as no id.
func checkID(v []byte) (json.RawMessage, error) {
	switch b := v[0]; {
	case b == '"', b == 'n', b == '-', isDigit(b):
		return v, nil
	}
	return nil, fmt.Errorf("%w: id must be a string, a number or null", ErrInvalidRequest)
}

func checkParams(v []byte) (json.RawMessage, error) {
	if v[0] == '{' || v[0] == '[' {
		return v, nil
	}
	return nil, fmt.Errorf("%w: params must be an object or an array", ErrInvalidRequest)
}

// decodeMethod decodes a method name: a non-empty string without control
// characters. Known names are returned without allocating.
func decodeMethod(v []byte) (string, error) {
	if v[0] != '"' {
		return "", fmt.Errorf("%w: method must be a string", ErrInvalidRequest)
	}
	raw := v[1 : len(v)-1]
	if name, _, ok := lookupMethod(raw); ok {
		return name, nil
	}
	var buf [64]byte
	name := appendUnescaped(buf[:0], raw)
	if len(name) == 0 {
		return "", fmt.Errorf("%w: method is empty", ErrInvalidRequest)
	}
	for _, b := range name {
		if b < 0x20 || b == 0x7f {
			return "", fmt.Errorf("%w: method holds a control character", ErrInvalidRequest)
		}
	}
	if known, _, ok := lookupMethod(name); ok {
		return known, nil
	}
	return string(name), nil
}
