package loadtest

import "errors"

var (
	// ErrInvalidOptions means the options or a load spec are unusable.
	ErrInvalidOptions = errors.New("loadtest: invalid options")
	// ErrSetup means a target could not be started or prepared (for
	// example the capability for the full invoke path was not issued).
	ErrSetup = errors.New("loadtest: setup failed")
	// ErrRedisUnavailable means no Redis could be started or reached.
	ErrRedisUnavailable = errors.New("loadtest: redis unavailable")
	// ErrStatus means a response had an HTTP status other than 200.
	ErrStatus = errors.New("loadtest: unexpected HTTP status")
	// ErrRPCError means a response carried a JSON-RPC error member.
	ErrRPCError = errors.New("loadtest: JSON-RPC error response")
	// ErrMalformedResponse means a response was not a JSON-RPC result.
	ErrMalformedResponse = errors.New("loadtest: malformed JSON-RPC response")
)
