package a2efront_test

import "time"

// redisTimeout is generous: the race detector on a shared machine is slow.
const redisTimeout = 3 * time.Second

// a2efrontAttempts is the default MaxHandshakeAttempts.
const a2efrontAttempts = 3
