package a2efront_test

import "time"

// redisTimeout is generous: the race detector on a shared machine is slow.
const redisTimeout = 3 * time.Second
