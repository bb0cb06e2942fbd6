// Package documents is the quickstart "documents" agent: a real A2A
// JSON-RPC server that capgate fronts at /a2a/documents in `capgate demo`,
// the README tutorial and the end-to-end tests. It mirrors the SEP's own
// example (README, "The quickstart world"), so its names and values are stable.
//
// # Why it exists
//
// capgate needs an upstream that behaves like a capability-aware agent
// written by someone else: it serves an agent card with capabilityGrants,
// answers the standard A2A methods through the official SDK (a2asrv), and
// implements the two extension methods the gateway relies on:
//
//   - a2a/skill/invoke, which arrives after the gateway has verified the
//     capability and replaced arguments.resourceHandle with
//     arguments.resourceId (or set arguments.resourceIds for list/search);
//   - a2a/resources/resolve, which the gateway calls to turn a SEP
//     resourceQuery into real resource ids before minting handles.
//
// # What it guarantees
//
//   - It acts only on the resource ids the gateway hands it. It never
//     resolves a resource handle itself: an invocation that still carries
//     arguments.resourceHandle is refused, and list/search without
//     arguments.resourceIds is refused, so a gateway bug fails closed.
//   - When the gateway's trusted A2A-Capability-Operations header is
//     present, the skill's operation must be listed in it (defence in depth).
//   - Every HTTP request it receives is recorded, before any parsing, in a
//     [Recorder], so tests can prove a rejected call never reached it.
//   - It accepts the method names of three A2A generations (v1.0, v0.3 and
//     v0.1) and rewrites them to the v0.3 names a2asrv knows; see
//     [CanonicalMethod] and [NormalizeSendParams].
//   - It keeps no package-level state; every [Agent] owns its documents,
//     its task store and its recorder, and takes its clock and logger from
//     [Options].
//
// The [Front] type, the [Recorder] and the card helpers are exported so
// that the sibling summarizer agent reuses them instead of copying them.
package documents
