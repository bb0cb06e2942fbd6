package a2e

import "errors"

// ErrParse means a line is not one well-formed JSON object that every
// parser reads the same way: a syntax error, trailing data, invalid UTF-8,
// nesting deeper than MaxDepth, or a duplicate or case-variant member name.
// Wire code parse_error.
var ErrParse = errors.New("a2e: parse error")

// ErrTooLarge means a line is longer than the limit it was decoded under.
// Wire code message_too_large; an HTTP front answers 413.
var ErrTooLarge = errors.New("a2e: line too large")

// ErrInvalidMessage means a well-formed object is not a valid A2E message:
// type or id missing or not a string, an unknown type, a known member of
// the wrong JSON type, a required member missing, or "a2e" and "version"
// disagreeing. Wire code invalid_message.
var ErrInvalidMessage = errors.New("a2e: invalid message")

// ErrTypeMismatch means Encode was given an envelope whose type is not the
// body's type.
var ErrTypeMismatch = errors.New("a2e: envelope type does not match the body")
