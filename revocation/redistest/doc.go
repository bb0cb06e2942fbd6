// Package redistest starts throwaway redis-server processes for tests: a
// single node on a free loopback port, or a small Cluster, each with
// persistence off and its own temporary directory, stopped by t.Cleanup.
// It never touches the Redis on 127.0.0.1:6379.
//
// A Server can be killed, restarted on the same port, paused (SIGSTOP) and
// resumed (SIGCONT), so tests can show what a store does when Redis dies,
// comes back empty, or hangs.
//
// When redis-server is not on PATH the test fails with a message saying
// how to install it, unless CAPGATE_SKIP_REDIS=1 is set, in which case it
// is skipped. It is meant for Linux and other Unix systems.
package redistest
