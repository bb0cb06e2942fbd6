package a2efront

import "errors"

// Errors of the front and its session stores. Match them with errors.Is.
var (
	// ErrInvalidConfig means a Config or Deps failed validation; the joined
	// error lists every problem.
	ErrInvalidConfig = errors.New("a2efront: invalid config")

	// ErrSessionNotFound means no live session has the id: it never
	// existed, expired or was deleted.
	ErrSessionNotFound = errors.New("a2efront: session not found")

	// ErrSessionLimit means the store already holds MaxSessions live
	// sessions.
	ErrSessionLimit = errors.New("a2efront: too many sessions")

	// ErrAnonymousLimit means the store already holds Limits.Anonymous
	// sessions reserved without credentials and not yet authenticated.
	ErrAnonymousLimit = errors.New("a2efront: too many sessions reserved without credentials")

	// ErrClientLimit means the client already holds Limits.PerClient
	// sessions reserved without credentials and not yet authenticated.
	ErrClientLimit = errors.New("a2efront: too many sessions reserved by this client")

	// ErrConflict means an Update lost a race: the stored revision is not
	// the one the caller read.
	ErrConflict = errors.New("a2efront: session changed concurrently")

	// ErrStoreUnavailable means the session store could not give a
	// trustworthy answer (Redis down, slow, or holding a value this package
	// did not write). Callers fail closed: the message is refused with a
	// retryable error and nothing is forwarded.
	ErrStoreUnavailable = errors.New("a2efront: session store unavailable")

	// ErrRecordForged means a session record's MAC did not verify: the
	// record was written by someone without the gateway's record key (or
	// with another key). The Front treats the session as gone.
	ErrRecordForged = errors.New("a2efront: session record failed authentication")

	// ErrUpstream means the A2E host could not be reached or answered with
	// an unexpected status.
	ErrUpstream = errors.New("a2efront: upstream host failed")

	// ErrUpstreamSessionGone means the A2E host no longer knows the
	// session (it answered 404).
	ErrUpstreamSessionGone = errors.New("a2efront: upstream session gone")
)
