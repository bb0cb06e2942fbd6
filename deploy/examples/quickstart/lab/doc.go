// Package lab is the quickstart "lab" A2E host: a real A2E environment host
// over HTTP that capgate fronts at /a2e/lab in `capgate demo`, the README
// tutorial and the end-to-end tests (README, "The quickstart world").
//
// # Why it exists
//
// The A2E front needs an upstream that behaves like an A2E host written by
// someone else: it speaks the HTTP transport of the A2E Python SDK
// (POST /session, POST /send with one NDJSON line and X-Session-Id,
// GET /stream as server-sent events), checks its own shared secret in
// handshake/req, and negotiates capabilities by the rules of the A2E
// specification, so that the tests can show those rules surviving the
// gateway's rewriting.
//
// # What it guarantees
//
//   - Negotiation follows the specification: the host decides; each plugin
//     declares a type naming a capability; a requested capability with no
//     plugin is answered enabled:false with metadata.reason "no plugin
//     loaded"; several plugins may serve one capability and are dispatched
//     by priority, higher first, ties in registration order; an exclusive
//     plugin alone handles the message types it serves. Each enabled
//     capability carries the metadata {name, type, priority, exclusive} of
//     its preferred plugin, plus the names of all its plugins.
//   - A handshake/req whose auth_token is not the host's own secret is
//     answered ok:false, reason auth_failed; a version other than
//     Options.Version is version_mismatch.
//   - Messages before a successful handshake, and messages for a
//     capability the session did not negotiate, are answered with an A2E
//     error (unauthorized, capability_missing) and never reach a plugin.
//   - Every line POSTed to /send is recorded, before any parsing, in a
//     [Recorder], so tests can prove a refused message never reached it.
//   - It keeps no package-level state; a [Host] owns its sessions, its
//     registry and its recorder, and takes its clock and logger from
//     [Options].
//
// The plugins are basic-tools (tools: echo and clock, which reads the
// injected clock), kv-memory (memory: a key-value store per session and
// memory id) and gridworld (env: a deterministic 5×5 grid). There is no
// chains plugin.
package lab
