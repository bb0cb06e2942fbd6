package discovery

import "errors"

// Snapshot errors. A principal that may do nothing is not an error: its
// snapshot says so. These mean the snapshot could not be computed, and a
// caller must not answer with a partial one.
var (
	// ErrNoPolicy means Input.Policy is nil.
	ErrNoPolicy = errors.New("discovery: no policy")
	// ErrNoClock means Input.Now is zero.
	ErrNoClock = errors.New("discovery: decision time not set")
	// ErrNoAgent means Input.Agent is empty.
	ErrNoAgent = errors.New("discovery: no agent")
)
