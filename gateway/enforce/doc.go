// Package enforce is the capability decision every front shares: given
// the caller's principal, what it presented (a capability id, a token or
// both) and what the call wants (the target agent or server, the
// operation, the resources it names), it returns the scope the call may
// proceed under or a refusal with a stable reason.
//
// It knows no protocol. It imports no net/http and no front's wire types,
// so the A2A front, a tool front or any other can call it, and each maps a
// Refusal to its own wire form (the JSON-RPC fronts use the code
// jsonrpc.CodeOf gives for the reason).
//
// # The checks, in order
//
//	Checker.Load      find (by id) and verify the capability; audience
//	CheckHolder       the caller is the capability's holder
//	Checker.Live      neither it nor an ancestor is revoked (fail closed)
//	Checker.NotFrozen neither its agent, principal, holder nor the caller
//	                  is frozen by an operator (package freeze; fail closed)
//	CheckOperation    the call's operation is in the capability
//	Checker.Open      the capability's resource map, opened once
//
// Checker.Decide runs them all; Checker.Usable runs the first three, for
// calls (attenuation, delegation) that use a capability without acting
// through it. Each is a function of its own inputs, testable alone. The
// holder is checked before the revocation store, so a caller cannot probe
// the revocation state of capabilities it does not hold, and every store
// error refuses (revocation_unavailable): the gateway fails closed.
//
// # Handles in, handles out
//
// A Scope turns what a caller sends into what the upstream acts on, and
// back. Scope.RewriteArguments replaces the handles of structured
// arguments with real ids; Scope.Inbound does the same in free text.
// Scope.IDMap builds the answer side: every real id of the capability
// becomes the caller's handle, and every other id the gateway knows of the
// target (its catalog, compiled once per target by NewCatalog into one
// multi-pattern matcher, so that an answer costs the same whatever the
// catalog's size) is redacted or refuses the answer. A handful of ids (a
// capability's own, a catalog of up to 8) are searched one by one
// instead, each skipping with IndexByte to its rarest byte, which reads
// an answer of prose several times faster than the automaton. A larger
// catalog skips the same way to where one of its ids could start (the
// byte at one offset, chosen rarest over all its ids) and looks the ids
// up there; the automaton reads on only from where such candidates turn
// out dense, or over a catalog of more than 16 id lengths. A front applies the
// map to every string of every answer, unary or streamed; walking the
// answer's JSON is the answer pipeline's job, not this package's.
//
// # Negotiated sessions
//
// A protocol that negotiates once instead of presenting a capability on
// every call (A2E) checks each message's operation with Sessions: it must
// be one the session negotiated and one the policy in force still allows.
// The negotiated set is re-decided once per session and policy revision,
// so a reload reaches a live session at its next message; with no policy
// loaded nothing is allowed (ErrNoPolicy).
package enforce
