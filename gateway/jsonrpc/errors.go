package jsonrpc

import "errors"

// The sentinels form a small tree so callers can match broadly or narrowly
// with errors.Is: ErrInvalidUTF8 and ErrTooDeep are also ErrParse;
// ErrMisspelledKey is also ErrCaseVariantKey, which is also
// ErrDuplicateKey; ErrDuplicateKey, ErrBatchTooLarge, ErrEmptyBatch and
// ErrBodyTooLarge are also ErrInvalidRequest.

// ErrParse means the body is not well-formed JSON: a syntax error, data after
// the value, or an empty body. Wire code -32700.
var ErrParse = errors.New("jsonrpc: parse error")

// ErrInvalidRequest means a body or an element is not a valid JSON-RPC 2.0
// request. Decode sets it, wrapped and naming the problem, on Request.Err.
// Wire code -32600.
var ErrInvalidRequest = errors.New("jsonrpc: invalid request")

// Whole-body errors: Decode fails the whole body with one of these.
var (
	// ErrInvalidUTF8 means a string holds invalid UTF-8 or a \u escape that
	// is a lone UTF-16 surrogate. It is also ErrParse. Wire code -32700.
	ErrInvalidUTF8 error = &childError{"jsonrpc: invalid UTF-8", ErrParse}

	// ErrTooDeep means arrays and objects nest deeper than Limits.MaxDepth.
	// It is also ErrParse. Wire code -32700.
	ErrTooDeep error = &childError{"jsonrpc: nesting too deep", ErrParse}

	// ErrDuplicateKey means one object repeats a member name, compared
	// after unescaping. It is also ErrInvalidRequest. Wire code -32600,
	// reason duplicate_key.
	ErrDuplicateKey error = &childError{"jsonrpc: duplicate member name", ErrInvalidRequest}

	// ErrCaseVariantKey means one object holds two member names that differ
	// only in case, under the Unicode simple folding encoding/json uses to
	// match names. It is also ErrDuplicateKey. Wire code -32600, reason
	// duplicate_key.
	ErrCaseVariantKey error = &childError{"jsonrpc: case-variant member names", ErrDuplicateKey}

	// ErrMisspelledKey means an object holds a member whose name differs
	// only in case from a name its reader reads by exact spelling
	// (Strict with Names). It is also ErrCaseVariantKey. Wire code
	// -32600, reason duplicate_key.
	ErrMisspelledKey error = &childError{"jsonrpc: member name differs in case from the name read", ErrCaseVariantKey}

	// ErrBatchTooLarge means a batch has more than Limits.MaxBatch elements.
	// It is also ErrInvalidRequest. Wire code -32600.
	ErrBatchTooLarge error = &childError{"jsonrpc: batch too large", ErrInvalidRequest}

	// ErrEmptyBatch means the body is an empty array. It is also
	// ErrInvalidRequest. Wire code -32600.
	ErrEmptyBatch error = &childError{"jsonrpc: empty batch", ErrInvalidRequest}

	// ErrBodyTooLarge means the body exceeds Limits.MaxBodyBytes. It is also
	// ErrInvalidRequest. Wire code -32600; an HTTP front may answer 413.
	ErrBodyTooLarge error = &childError{"jsonrpc: body too large", ErrInvalidRequest}
)

// Errors for dispatchers and handlers.
var (
	// ErrInvalidParams means params do not fit the method. UnmarshalParams
	// wraps it. Wire code -32602.
	ErrInvalidParams = errors.New("jsonrpc: invalid params")

	// ErrMethodNotFound is for dispatchers that do not know a method.
	// Wire code -32601.
	ErrMethodNotFound = errors.New("jsonrpc: method not found")
)

// Programming and configuration errors; ErrorFor maps them to -32603.
var (
	// ErrInvalidLimits means a Limits value failed Validate.
	ErrInvalidLimits = errors.New("jsonrpc: invalid limits")

	// ErrInvalidTarget means UnmarshalParams was given something other than
	// a non-nil pointer.
	ErrInvalidTarget = errors.New("jsonrpc: params target must be a non-nil pointer")
)

// childError is a sentinel that is also its parent under errors.Is.
type childError struct {
	msg    string
	parent error
}

func (e *childError) Error() string { return e.msg }
func (e *childError) Unwrap() error { return e.parent }
