package mcp

import "errors"

// ErrPointer is wrapped by every error ParsePointer returns.
var ErrPointer = errors.New("mcp: invalid JSON pointer")
