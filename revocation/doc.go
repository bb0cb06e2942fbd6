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
//     Its Revoke does not wait for Synced replicas: they apply it within
//     MaxStaleness.
//   - Synced: a replica's local copy of the Redis set, fed by pub/sub and
//     rebuilt by SCAN on every (re)subscription. It answers from memory
//     while its subscription is confirmed caught up (PING) within
//     MaxStaleness, asks Redis otherwise, and fails closed when Redis
//     cannot answer. A revocation it holds is never forgotten before its
//     until, even if Redis loses it; the resync that follows writes it
//     back. Its Revoke returns only once no replica can answer from
//     memory without the revocation (below).
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
//   - Once Synced.Revoke or RevokePrincipal has returned nil, no Check
//     that starts afterwards on any Synced replica of the prefix answers
//     "not revoked" for it (below, with what it assumes).
//
// # No late allow across replicas
//
// Synced.Revoke on replica A adds the entry to A's set, then runs the
// revoke script, which writes the key and publishes the event tagged with
// a random nonce ("n:<nonce>:…") in one atomic step, and returns PUBLISH's
// count c. Call P the moment it ran; A reads its clock when the reply
// arrives, at t1, after P. A then reads the registry, the replicas
// holding a lease (registry.go), and after it the epoch marker, at G and
// G' (after P). Every replica applies an event to its set before it reads
// the next message, and only then acknowledges it on the channel
// "<prefix>rev:acks" with the nonce and its replica id; A's own
// subscription delivering the event counts as A's acknowledgement. A
// returns nil at the first of:
//
//   - (a) acknowledgements from c distinct replicas and from every leased
//     replica but A, the marker being present at G';
//   - (b) its clock reads t1 + MaxStaleness, or MaxStaleness after its own
//     subscription delivered the event, if later. This is logged with the
//     number of acknowledgements missing and counted in
//     SyncedStats.UnconfirmedRevokes and MissingAcks.
//
// If ctx ends first it returns ErrUnconfirmed wrapping ctx's error: the
// revocation is stored and published, and (b) still holds for it, but the
// call did not wait.
//
// A replica B trusts its set alone until min(S + M, l + 2M), M its
// MaxStaleness, for the latest S such that: B sent a PING at S and
// received its PONG on the subscription; before sending that PING it had
// registered a lease, sent at l after its last resync, and had the reply;
// and after the PONG it read the epoch marker and found the one of its
// last resync. Redis executes a connection's commands in order and writes
// replies and messages to it in the order it produces them, and B applies
// each message before it reads the next. So (F) when B stores a trust
// time from S, its set holds every event published before that PING ran,
// which is after S. Check reads the trust time before it reads the set.
//
// Claim: take a Check on replica B that starts at R, after A returned,
// and suppose it answers "not revoked" from memory. B is not A (A's set
// held the entry before P). B read a trust time F > R, stored from some S
// and l, then a set without the entry; the set only grows, so B had
// applied the event neither when it read the set nor when it stored F,
// and had not acknowledged it. By (F) the PING of S ran before P: S < P.
//
//   - If A returned by (b): R ≥ t1 + M ≥ P + M > S + M ≥ F, so B did not
//     trust its set at R. Contradiction.
//   - If A returned by (a): B did not acknowledge, so it was not among the
//     leased replicas read at G. Its registration ran at X, after l and
//     before its PING: X < S < P < G, with the deadline X + 3M (registry
//     leases are 3M, replicas rely on 2M of them). B trusted its set at R
//     only if R < l + 2M, so G − X < R − l < 2M: the lease was running at
//     G, unless Redis lost it between X and G. A loss erases the epoch
//     marker with the registry, and markers are random and never reused.
//     B read the marker in its last resync, before X, and found it again
//     after its PONG, at Y > X: no loss in between. If A found the same
//     marker at G', there was none up to G' either, and B's lease was read
//     at G. Contradiction. If A found another marker, B's was erased after
//     Y, and the new one created later still, by a replica that first
//     waited M from a read that found the marker gone (resyncEpoch; a
//     process that never saw a marker waits InitGrace from such a read),
//     so G' > Y + M > S + M ≥ F, and B did not trust its set at R > G'.
//     Contradiction.
//
// So B's Check found the entry, or asked Redis, which holds the key
// (written before P, never shortened) or fails closed.
//
// What this assumes, besides the above on losses:
//
//   - Clocks advance at the same rate everywhere and are not stepped while
//     a bound runs: durations are measured on each process's monotonic
//     clock (Synced keeps its trust as a duration from a base reading),
//     and Redis measures leases with TIME, as it does key TTLs.
//   - Every replica sharing a prefix has the same MaxStaleness: the bound
//     uses the revoker's, trust uses each replica's own.
//   - RedisOptions.InitGrace is at least MaxStaleness (MinInitGrace is,
//     and the gateway uses it).
//   - Redis keeps what it acknowledged. A failover that drops recent
//     writes but keeps the marker (asynchronous replication) can drop a
//     lease renewal; the extra M of a registry lease covers one lost
//     renewal, not more. Such a failover can drop revocations too (see
//     below).
//   - On Cluster, PUBLISH's count covers only the node that ran the script
//     (the registry, not the count, is what (a) relies on), and the event
//     reaches the subscribers' node over the cluster bus, after P: (F)
//     holds only from the moment that node delivers it, which is why (b)
//     waits M after A's own subscription (on the same node as every
//     other) delivered it. If A's subscription is down for the whole
//     bound, an event held up on the bus can reach B after A returned. A
//     loss confined to the master holding the registry is not detected
//     by the marker, as for revocations.
//   - Redis does not lose the set twice within about M plus a resync. The
//     wait before a new marker is measured from a read that found the
//     marker gone, and the compare-and-set that creates it checks only
//     that none is there now: a replica still recovering from a first
//     loss can create a marker right after a second one, and a replica
//     that resynced onto the marker of the first recovery can then be
//     left out of the registry while it still trusts its set. Closing
//     this needs a pending token that a loss erases and that creation
//     requires; it is not built.
//
// The count c is not needed by the argument: it makes any subscriber that
// holds no lease (a replica from before acknowledgements, which also finds
// tagged events malformed and resyncs on each; a tool subscribed to the
// channel) hold revokers until the bound, which is safe and logged.
//
// Acknowledgements are not authenticated. Whoever can publish on Redis can
// forge one and make a revoker return before a replica holds the
// revocation; but whoever can publish on Redis can also delete revocation
// keys and the marker, so the channels are exactly as trusted as the keys.
//
// Costs: a revocation on a Synced replica waits for the script, the
// registry read and the slowest acknowledgement; each replica renews its
// lease in the round trip that reads the marker after every PING, and
// receives every replica's acknowledgement of every revocation.
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
//     memory, resyncs, writes back every revocation it holds at once, then
//     waits until MaxStaleness has passed since it found the marker gone
//     (so that no replica that has not noticed still trusts its set; see
//     above), and only then re-establishes the marker (a compare-and-set:
//     if the marker moved meanwhile, it resyncs again). Every store
//     recovers on its own as soon as a replica has done so; no restart is
//     needed.
//   - A store that never saw a marker (a process just started) and finds
//     none holds nothing to write back. It waits RedisOptions.InitGrace
//     (DefaultInitGrace) for a surviving replica to re-establish the
//     marker, and adopts it if one does; after the grace it initialises a
//     new, empty set. A fresh deployment and a loss that no running replica
//     survived look the same to it.
//   - The grace must outlast how late a running replica writes back after
//     Redis answers again, or a replica started in between would trust an
//     empty set while another still holds revocations. A Synced replica
//     retries its subscription at least every MaxStaleness/4 (between
//     50 ms and 5 s) however long Redis was down, and writes back before
//     anything else; MinInitGrace adds the breaker's cool-down and
//     go-redis's dial retry to that, and MaxStaleness for the write-back.
//     The gateway uses it; NewSynced logs a warning when its Redis store's
//     grace is shorter. With the defaults a replica started during the
//     window does not start answering before a running replica has
//     written back, and then holds what it wrote.
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
// revocations back (see MinInitGrace for a replica started meanwhile).
// Snapshot-only persistence (save without appendonly) rolls back to the
// last snapshot on restart, keeping the marker: the revocations made since
// are restored only by running replicas, which resync after every
// reconnection. Production should run appendonly yes.
package revocation
