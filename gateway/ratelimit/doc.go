// Package ratelimit bounds what one principal may do through the gateway:
// how fast it may have capabilities issued, attenuated (including the
// children minted by a delegated send) and invoked, and how many live
// capabilities it may hold at once.
//
// Rates are token buckets (GCRA) kept per principal, or per principal and
// agent when Config.PerAgent is set. With a Redis client the buckets live
// in Redis, through github.com/go-redis/redis_rate, so every replica draws
// on the same budget; without one they live in memory
// (golang.org/x/time/rate), bounded by Config.MaxKeys.
//
// The live-capability cap counts, per principal, the capabilities minted
// at its request that have not yet expired: a sorted set scored by expiry
// in Redis, a list of expiries in memory. It counts what the limiter was
// told was minted (RecordLive), independently of the capability index, so the
// check costs one round trip however many capabilities the principal
// holds. A revoked capability keeps its slot until it would have expired.
// The check and the record are separate steps, so concurrent issuances by
// one principal may overshoot the cap by at most their number, which the
// issuance rate bounds.
//
// The limiter fails closed: when its store cannot answer, Allow and
// AdmitLive return an error matching ErrUnavailable and the gateway
// refuses the call. A local fallback would hand each replica a budget of
// its own, multiplying every limit by the number of replicas exactly when
// the shared state is gone; and the revocation store and the capability
// index, which share that Redis, refuse in that case anyway.
package ratelimit
