package audit

import (
	"errors"
	"fmt"
)

var (
	// ErrTampered means a line is well formed but the chain does not hold:
	// a hash does not match the event's content, a prev does not link to
	// the event before it, or a seq is missing, repeated or out of order.
	ErrTampered = errors.New("audit: chain tampered")

	// ErrMalformed means a line is not an audit event: not a single JSON
	// object, invalid UTF-8, a duplicate key, too long, or a required field
	// (time, event, chain, seq, prev, hash) missing or of the wrong shape.
	ErrMalformed = errors.New("audit: malformed event")

	// ErrWrite means the handler could not write an event to its writer.
	// The event still took its place in the chain (and still went to the
	// stream), so the file shows the gap rather than hiding it.
	ErrWrite = errors.New("audit: write failed")
)

// LineError names the first event at which verification failed. It wraps
// ErrTampered or ErrMalformed; match those with errors.Is and use
// errors.As to get the position.
type LineError struct {
	// Line is the 1-based position of the event: the line number in a
	// file, or the entry's position in a stream.
	Line int
	// ID is the stream entry id; empty for a file.
	ID string
	// Chain and Seq identify the event when its line could be parsed that
	// far; empty and 0 otherwise.
	Chain string
	Seq   uint64
	// Err wraps ErrTampered or ErrMalformed with the detail.
	Err error
}

// Error names the position, the event and the reason.
func (e *LineError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.ID != "" {
		where = fmt.Sprintf("entry %d (id %s)", e.Line, e.ID)
	}
	if e.Chain != "" {
		where += fmt.Sprintf(" (chain %q, seq %d)", e.Chain, e.Seq)
	}
	return where + ": " + e.Err.Error()
}

// Unwrap returns the sentinel-wrapping cause.
func (e *LineError) Unwrap() error { return e.Err }
