package revocation

import "errors"

// Errors returned by the stores. Match them with errors.Is; never compare
// strings. Whatever the error, a caller MUST treat it as "not allowed".
var (
	// ErrUnavailable means no trustworthy answer could be given: Redis is
	// down, slow, overloaded, answered with an error or with a value this
	// package cannot parse, the circuit breaker is open, or the store is
	// closed. It is never a "not revoked". The cause is wrapped with it.
	ErrUnavailable = errors.New("revocation: store unavailable")

	// ErrCircuitOpen is wrapped together with ErrUnavailable when the
	// circuit breaker refused the call without trying Redis.
	ErrCircuitOpen = errors.New("revocation: circuit breaker open")

	// ErrClosed is wrapped together with ErrUnavailable when the store was
	// used after Close.
	ErrClosed = errors.New("revocation: store closed")

	// ErrCorrupt is wrapped together with ErrUnavailable when Redis held a
	// value this package did not write (an unparsable cutoff, an impossible
	// reply). The answer is refused rather than guessed.
	ErrCorrupt = errors.New("revocation: corrupt value in store")

	// ErrStoreLost is wrapped together with ErrUnavailable while Redis has
	// lost the revocation set: its epoch marker is gone (a restart without
	// the data, FLUSHALL, a failover to an empty replica). It lasts until a
	// replica has written back what it holds and re-established the marker.
	ErrStoreLost = errors.New("revocation: redis lost the revocation set")

	// ErrNoPersistence means Redis runs with neither AOF nor RDB
	// persistence and the caller did not allow it (see CheckPersistence).
	ErrNoPersistence = errors.New("revocation: redis has no persistence")

	// ErrInvalidID means a revocation id is empty, longer than MaxIDLength
	// bytes, or holds a byte outside printable ASCII (space excluded).
	ErrInvalidID = errors.New("revocation: invalid revocation id")

	// ErrInvalidPrincipal means a principal is empty (where one is
	// required), longer than MaxPrincipalLength bytes, not UTF-8, or holds a
	// control character.
	ErrInvalidPrincipal = errors.New("revocation: invalid principal")

	// ErrInvalidQuery means a Query names no revocation id or more than
	// MaxChainLength of them.
	ErrInvalidQuery = errors.New("revocation: invalid query")

	// ErrInvalidTime means a time argument is zero or outside the years
	// 1970 to 9999.
	ErrInvalidTime = errors.New("revocation: invalid time")

	// ErrInvalidOptions means an options struct failed Validate, or a
	// constructor was given a nil or unsupported dependency.
	ErrInvalidOptions = errors.New("revocation: invalid options")

	// ErrMalformedEvent means a pub/sub payload on the revocation channel is
	// not one this package publishes. Synced logs it and resynchronises.
	ErrMalformedEvent = errors.New("revocation: malformed event")
)
