// Package platform holds what every part of the gateway shares at run
// time and nothing else: the clock, the operational logger, the tracer,
// the metrics, the shared Redis store (its client, key prefix and call
// timeout) and the process environment.
//
// FromConfig in package gateway builds one Runtime and hands it down; each
// part's options embed it beside what is that part's own, so that the
// clock or the Redis timeout is set in one place rather than repeated in
// every option struct. The package imports nothing of the gateway's
// fronts or stores, and the dependency-free packages (captoken, policy,
// revocation) do not import it: they keep taking their clock and logger
// as explicit parameters.
package platform
