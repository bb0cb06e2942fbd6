// Package audit is capgate's tamper-evident audit trail.
//
// The gateway logs one event for every capability issuance, attenuation,
// delegation, invocation decision (allow or deny), revocation, and every
// A2E handshake and refusal, through an ordinary *slog.Logger. Handler is
// the slog.Handler behind that logger: it writes each record as one JSON
// line and links the lines into a hash chain, so that a security team can
// show that the trail it reads is the trail the gateway wrote. Verify
// checks a file; RedisStream copies every event to a Redis stream so the
// trail outlives the replica, and VerifyStream checks that copy.
//
// # Event fields
//
// Every line is a JSON object with these fields besides the record's
// attributes (groups become nested objects):
//
//	time   the event time, UTC, RFC 3339 with nanoseconds
//	event  the record's message, e.g. "capability.invoke"
//	chain  the writer's chain id (Options.Chain, the replica id)
//	seq    1, 2, 3, ... within the chain, in write order
//	prev   the hash of the chain's previous event; "" at seq 1
//	hash   the hex SHA-256 of the event's canonical encoding without hash
//
// An attribute never overwrites a field: an attribute whose key is taken,
// by a reserved field or an earlier attribute of the same object, is
// written as key#2 (then key#3, ...). Attribute values become JSON as
// slog.JSONHandler would write them: durations as integer nanoseconds,
// times as RFC 3339 strings, errors as their message, other values through
// encoding/json; NaN and infinities as strings. Strings are made valid
// UTF-8 first (each invalid sequence becomes U+FFFD). An event whose
// attributes exceed about MaxLineBytes is written without them, with
// attrs_omitted holding their size, so it still takes its place in the
// chain.
//
// # Canonical encoding
//
// The canonical encoding of an event is the JSON text produced by:
//   - objects, at every depth: members sorted by key, compared as byte
//     strings (the UTF-8 encoding of the key); no whitespace anywhere;
//   - strings: as Go's encoding/json Encoder writes them with HTML
//     escaping off: `"` and `\` escaped, \n \r \t for those controls,
//     other controls below U+0020 and U+2028, U+2029 as \u00XX or \u2028,
//     every other character as raw UTF-8;
//   - numbers: their literal text exactly as it appears in the line
//     (the handler writes integers in decimal and floats in encoding/json's
//     shortest form);
//   - true, false, null and arrays as usual, with no whitespace.
//
// hash is the lowercase hex SHA-256 of the canonical encoding of the event
// without its hash member; prev is part of what is hashed, so each hash
// commits to the whole chain before it. The handler writes every line in
// canonical form (with hash in its sorted place); Verify parses the line
// and recomputes the canonical form, so whitespace or member order
// changed by a log shipper does not break verification, but a changed
// value does. testdata/canonical.golden pins the encoding.
//
// The verifier parses strictly: a line must be valid UTF-8, a single
// object with no duplicate key at any depth (a reader must never see two
// values for one authenticated key), at most MaxLineBytes long.
//
// # Guarantees and limits
//
// Handler is safe for concurrent use; the chain order is the order in
// which Handle calls take the chain lock, and each event is one Write.
// Verify detects any changed, inserted, deleted or reordered line and
// names the first broken one. The hash chain alone has no secret: a
// writer who can rewrite the file from some point on and recompute every
// later hash is not detected by it. Signed checkpoints close that hole.
//
// # Checkpoints
//
// With Options.Checkpoints the handler signs the chain head after every
// Every events (default 1000), when Interval (default one minute) passes
// with events not yet covered, and on Close. A checkpoint is an ordinary
// event of the chain named audit.checkpoint, so the chain format does not
// change and readers without keys still verify it; its jws member is a
// compact JWS of type audit-checkpoint+jws over {"chain","hash","seq"},
// the head just before it. The gateway signs with the active key of its
// capability key set: no second secret to manage, and the public half is
// the JWKS the gateway already publishes. Keep every JWKS the gateway has
// used (it is public) for as long as the audit trail is kept: a pruned key
// leaves old checkpoints unverifiable, not forged.
//
// VerifyOptions.Keys makes the verifier check every checkpoint against
// the JWKS and refuse a chain that runs more than CheckpointEvery events
// without one. A rewrite without the key therefore fails at the first
// checkpoint after the change (its signature no longer matches) or, if
// checkpoints are removed, after CheckpointEvery events. What remains
// unprotected is reported, never hidden: ChainReport.Unsigned counts the
// events after the last checkpoint (and the tails of segments whose
// writer stopped without Close). Events cut from the end of a chain after
// its last checkpoint, or a whole tail cut back to an earlier checkpoint,
// are not visible in the file itself; the checkpoint times bound how much
// can be missing, and the Redis stream or an export of Handler.Head
// anchors the rest.
//
// # SIEM formats
//
// OpenOptions.Format (the config's audit.format) renders every event for
// the file and the stream as OCSF 1.8.0 JSON or as CEF (package siem).
// The chain is computed over the canonical events before rendering. An
// OCSF record keeps its canonical event under unmapped.capgate, and the
// verifier reads it there: it verifies the event as a canonical line and
// also checks that the record's mapped fields are exactly what rendering
// that event gives, so a SIEM field changed after the fact is detected
// like a changed event. A CEF trail carries only the chain position and
// hash of each event and cannot be verified on its own: keep a canonical
// or OCSF trail beside it (capgate audit export renders one as CEF).
//
// A RedisStream never blocks the request path: events wait in a bounded
// buffer, Redis failures are retried with backoff in the background, and
// events that do not fit are dropped, counted (Dropped, the OnDrop hook),
// logged, and declared in the stream with a gap entry. Each replica keeps
// its own chain, so VerifyStream verifies each chain of a shared stream
// separately.
package audit
