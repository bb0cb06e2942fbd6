package mcpfront

import "errors"

// ErrInvalidConfig is wrapped by every error New returns for a config or
// deps it cannot serve.
var ErrInvalidConfig = errors.New("mcpfront: invalid config")
