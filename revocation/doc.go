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
//     until, even if Redis loses it; the resync that follows writes it
//     back.
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
//   - A Redis that lost the set is noticed and fails closed (see below).
//
// # When Redis loses the revocation set
//
// Redis can come back without its data: a restart without persistence, a
// FLUSHALL, a failover to an empty replica. Beside the revocations Redis
// holds an epoch marker, a random id without TTL that says the set is
// complete; whatever erases the set erases the marker with it.
//
//   - Redis.Check reads the marker before and after its lookups, in the same
//     round trip, and answers "not revoked" only if both reads find it; a
//     revocation it finds is still returned. Otherwise it fails with
//     ErrStoreLost (wrapped in ErrUnavailable). Redis.Ping and Synced.Ready
//     fail the same way, so readiness drops.
//   - Synced reads the marker after every answered PING of its
//     subscription and on every resync. On a loss it stops answering from
//     memory, resyncs, writes back every revocation it holds, and only then
//     re-establishes the marker (a compare-and-set: if the marker moved
//     meanwhile, it resyncs again). Every store recovers on its own as soon
//     as a replica has done so; no restart is needed.
//   - A store that never saw a marker (a process just started) and finds
//     none holds nothing to write back. It waits RedisOptions.InitGrace
//     (DefaultInitGrace) for a surviving replica to re-establish the
//     marker, and adopts it if one does; after the grace it initialises a
//     new, empty set. A fresh deployment and a loss that no running replica
//     survived look the same to it.
//   - On Redis Cluster the marker lives on one master: a loss confined to
//     another master is not detected. Run Cluster with persistence and
//     replicas.
//
// # Persistence and the risk of allowing none
//
// Redis.CheckPersistence reads CONFIG GET appendonly and save at start and
// refuses a Redis with neither (ErrNoPersistence) unless the caller allows
// it; the same check is logged whenever a loss is seen. When CONFIG is
// disabled the persistence cannot be checked: that is logged and accepted.
//
// Allowing a Redis without persistence accepts this risk: if Redis
// restarts while no replica holding the revocations is running (every
// replica restarted too, or Redis restarted during a full redeploy), every
// revocation is forgotten for good, and revoked capabilities are accepted
// again until they expire. With running Synced replicas the loss is
// detected, checks fail closed for a moment, and the replicas write the
// revocations back. Snapshot-only persistence (save without appendonly)
// rolls back to the last snapshot on restart, keeping the marker: the
// revocations made since are restored only by running replicas, which
// resync after every reconnection. Production should run appendonly yes.
package revocation
