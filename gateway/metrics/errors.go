package metrics

import "errors"

var (
	// ErrInvalidOptions means Options failed validation; the wrapped
	// errors name every problem.
	ErrInvalidOptions = errors.New("metrics: invalid options")

	// ErrRegister means a collector could not be registered, typically
	// because New was already called with the same registry.
	ErrRegister = errors.New("metrics: registering collectors")
)
