package proxy

import "errors"

// ErrUpstream is reported when the upstream cannot be reached or fails.
var ErrUpstream = errors.New("proxy: upstream unavailable")
