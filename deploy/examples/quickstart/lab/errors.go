package lab

import "errors"

// ErrInvalidOptions means Options failed Validate.
var ErrInvalidOptions = errors.New("lab: invalid options")

// ErrInvalidPlugin means a plugin's info is unusable: no name, or a type
// that is not an A2E capability name.
var ErrInvalidPlugin = errors.New("lab: invalid plugin")

// ErrDuplicatePlugin means two plugins share a name.
var ErrDuplicatePlugin = errors.New("lab: duplicate plugin name")

// ErrStreamClosed means a Client's stream ended.
var ErrStreamClosed = errors.New("lab: stream closed")
