// Package freeze is the gateway's emergency stop: the set of agents and
// principals an operator has frozen. While an agent is frozen no
// capability is issued for it and no call reaches it; while a principal
// is frozen nothing is issued to it or for it and none of its calls
// proceed. Freezing also revokes every live capability held by or for it
// (the admin API does that through the revocation store); this package
// only keeps the set, replicated.
//
// # Entries, and why unfreezing leaves a trace
//
// The set maps "kind:name" to the latest change an operator made: frozen
// or not, who, why and when. An unfreeze is kept as an entry that says
// "not frozen" rather than deleted, so that every copy of the set can be
// merged with any other by keeping, per name, the newer change (by time,
// then by a random nonce). Merging is then order-free: a copy that missed
// a change learns it at its next merge, and a copy that holds a change
// Redis lost writes it back.
//
// # Replicas
//
// Without Redis the set lives in the process. With Redis every replica
// keeps the whole set in memory and answers from it; the shared copy is
// one hash, "<prefix>frz". A change is applied to the replica's memory,
// then written to the hash by a script that keeps the newer of the two
// and publishes it on "<prefix>frz:ev", which every replica applies at
// once. Independently every replica merges with the hash every
// MaxStaleness/4: it reads the hash, keeps per name the newer change, and
// writes back each change it holds that the hash lacks or holds older.
// So a Redis restarted without its data gets back every entry from every
// running replica at the next merge, and a replica started or restarted
// reads the set before it answers.
//
// A replica trusts its memory for MaxStaleness after sending the last
// read that succeeded; past that, Check fails (ErrUnavailable) and the
// gateway refuses, closed. Freeze returns only MaxStaleness after its
// write was acknowledged: by then every replica has read the hash after
// the write or has stopped trusting its memory, so no replica issues to a
// frozen agent or principal after Freeze returned (assuming clocks
// advance at the same rate, as the revocation store does).
//
// # Open streams
//
// A stream opened before a freeze ends at its next event, capability or
// not: the fronts ask Check again before each event of an A2A stream
// (message/stream, tasks/resubscribe), an MCP session's standalone stream
// or streamed answer, and an A2E session's stream (the host's events).
// Once the agent or a principal is frozen, the caller gets the refusal a
// new call would in place of the event and the stream closes; nothing
// more of the upstream reaches it. Check reads this replica's memory under
// a read lock, no round trip per event; when it fails (ErrUnavailable)
// the stream ends as unavailable, closed. A stream whose upstream stays
// silent ends at its next event or its own timeout.
//
// Names are matched exactly as written (the admin API refuses an agent
// freeze naming nothing the gateway fronts; a principal's cannot be
// checked).
//
// What is not covered: a Redis that loses its data while no replica that
// holds the set is running forgets every freeze, as it forgets
// revocations (see package revocation); run Redis with persistence. The
// capabilities revoked on freezing stay revoked under the revocation
// store's own guarantees.
//
// # Metrics
//
// With Runtime.Metrics, the gauge capgate_frozen{kind} follows this
// replica's copy of the set (changes made here, published or merged), and
// capgate_freeze_actions_total{kind,action} counts the freezes and
// unfreezes made through this replica.
package freeze
