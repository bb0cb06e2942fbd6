package a2agen

import (
	"errors"
	"fmt"
)

// ErrUntranslatable is wrapped by every refusal of a member that the
// target generation cannot express.
var ErrUntranslatable = errors.New("not translatable")

// ErrMalformed is wrapped by every refusal of a member whose value is not
// of the type its own generation defines.
var ErrMalformed = errors.New("malformed")

// Error is a failed translation: the path of the member (as in
// "params.message.parts[0].mediaType") and what is wrong with it.
type Error struct {
	// Path locates the member in the request or answer.
	Path string
	// Reason says what is wrong, for a person.
	Reason string
	kind   error
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (%v)", e.Path, e.Reason, e.kind)
}

// Unwrap returns ErrUntranslatable or ErrMalformed.
func (e *Error) Unwrap() error { return e.kind }

func untranslatable(path, format string, args ...any) error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, args...), kind: ErrUntranslatable}
}

func malformed(path, format string, args ...any) error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, args...), kind: ErrMalformed}
}
