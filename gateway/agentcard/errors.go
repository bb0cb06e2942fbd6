package agentcard

import "errors"

// ErrFetch is wrapped when the upstream card cannot be fetched or parsed.
var ErrFetch = errors.New("agentcard: cannot fetch card")

// ErrRedirect is wrapped when the upstream answers a card fetch with a
// redirect, which is never followed.
var ErrRedirect = errors.New("agentcard: redirect refused")
