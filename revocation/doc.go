// Package revocation records revoked capabilities and answers, for a
// capability and all of its ancestors, whether any of them was revoked.
//
// # Why
//
// Capability tokens are self-contained and valid until they expire, so the
// only way to withdraw one early is a revocation list every replica
// consults on every use. A capability carries its own revocation id plus
// every ancestor's, the principal it acts for and its issued-at time; a
// Query holds all of them and Check answers for the whole chain at once, so
// revoking any ancestor kills every descendant and revoking a principal
// (RevokePrincipal) kills everything it was issued before a cutoff.
//
// # The contract: fail closed
//
// Callers MUST treat ANY error from Check as "not allowed". Only
// (Result{Revoked: false}, nil) allows a capability. A revoked capability
// is a Result, not an error; an error means no trustworthy answer exists:
// Redis down, slow, out of memory, answering garbage, the breaker open, the
// store closed (all wrapping ErrUnavailable), or a malformed query
// (ErrInvalidQuery, ErrInvalidID, ErrInvalidPrincipal).
//
// # Stores
//
//   - Memory: one process, no network; the embedded default. Check takes a
//     read lock on one of 64 shards per id and does not allocate (about
//     200 ns for a three-link chain with a million ids held).
//   - Redis: shared by replicas through a go-redis UniversalClient (single
//     node, Sentinel or Cluster; not Ring). Check is one pipelined round
//     trip; Revoke is one Lua script that extends the key (never shortens
//     it) and publishes the event. Every call is bounded by a timeout that
//     holds whatever the client's own settings, behind a circuit breaker.
//   - Synced: a replica's local copy of the Redis set, fed by pub/sub and
//     rebuilt by SCAN on every (re)subscription. It answers from memory
//     while its subscription is confirmed caught up (PING) within
//     MaxStaleness, asks Redis otherwise, and fails closed when Redis
//     cannot answer. A revocation it holds is never forgotten before its
//     until, even if Redis loses it; the next resync writes it back.
//
// Every store passes the one conformance suite in revocationtest.
//
// # Guarantees
//
//   - Revocations only grow: until only extends, a principal cutoff only
//     moves later, and no message or call removes an entry before its
//     until. Whoever can publish on the channel can deny, never allow.
//   - Times are kept in milliseconds, rounded so that rounding only ever
//     revokes more. A zero IssuedAt counts as issued before every cutoff.
//   - Ids, principals and chains are bounded (MaxIDLength,
//     MaxPrincipalLength, MaxChainLength) and validated on every call.
//   - Redis without persistence forgets everything when it restarts; run
//     it with AOF in production, or rely on Synced replicas to restore
//     what they remember.
package revocation
