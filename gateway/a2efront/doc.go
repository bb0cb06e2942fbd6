// Package a2efront is the gateway's A2E front: POST /a2e/{host}/session,
// POST /a2e/{host}/send and GET /a2e/{host}/stream, the HTTP transport of
// the A2E Python SDK, proxied to the A2E host named {host}.
//
// # Why it exists
//
// An A2E host trusts whoever holds its shared secret and enables whatever
// plugins it has. The front puts the grant policy between agents and
// hosts: agents authenticate with their own credential (an OIDC token or a
// dev key in handshake/req's auth_token), the policy decides which
// capabilities each principal may negotiate with each host, and every
// later message is checked against what the session negotiated.
//
// # What it guarantees
//
//   - The caller's auth_token never reaches the host: a handshake/req is
//     forwarded only after it authenticated, with auth_token replaced by
//     the host's own secret (and any case variant of the name removed).
//     An unauthenticated handshake is answered ok:false auth_failed; a
//     version other than the host's, version_mismatch; nothing is
//     forwarded.
//   - agent_caps is narrowed before forwarding to what the policy allows
//     (policy.DecideA2E) and what the host offers (Host.Capabilities, when
//     set). If nothing is left the handshake is answered no_caps and not
//     forwarded. With a shadow policy (Deps.Shadow) the candidate decides
//     the same handshake without enforcing; a different outcome is a
//     policy.shadow_disagreement audit event of kind a2e.
//   - The host's handshake/resp is rewritten: accepted_caps lists every
//     requested capability; enabled is true only where the gateway
//     forwarded it AND the host enabled it, with the host's metadata;
//     otherwise enabled is false with metadata.reason "denied by policy",
//     "no plugin loaded" or the host's own reason. The outcome (principal,
//     accepted set, max_parallel) is recorded in the SessionStore before
//     the caller sees it; if it cannot be recorded the caller gets ok:false
//     server_error. A handshake/resp that answers no pending handshake is
//     dropped.
//   - POST /session only reserves a gateway session. The host's own
//     session is opened by the first handshake/req that authenticated and
//     kept at least one capability after narrowing, so callers who never
//     authenticate never reach the host, however many sessions they open.
//     Until then the stream carries only the gateway's messages.
//   - Every other message is mapped to a capability by its type's
//     namespace (a2e.CapabilityFor). Before a successful handshake it is
//     refused (unauthorized); for a capability not accepted it is refused
//     (capability_missing); for one the policy in force no longer allows
//     (after a reload) it is refused too (capability_missing, "no longer
//     allowed by policy"): the session's accepted set is re-decided
//     against each new policy revision, once per session and revision. A2E
//     has no message that renegotiates a live session, so that refusal is
//     how the caller learns of the change; with no policy loaded every
//     message is refused (unavailable). Beyond max_parallel requests in flight it is
//     refused (too_many_requests, retryable). A request counts until a
//     message carrying its id as req_id comes back (invoke/event does not
//     count), or until Config.RequestTimeout. Malformed lines (parse_error),
//     unknown types (invalid_message) and oversized lines
//     (message_too_large, HTTP 413) are refused too. A refused message is
//     never forwarded, and no refusal ends the session.
//   - Refusals are A2E error messages on the session's stream, published
//     through the SessionStore, so they reach the caller whichever replica
//     holds its stream. /send's HTTP status reports only the transport:
//     202 when the line was taken (body {"ok":true} when forwarded,
//     {"ok":false,"code":…} when refused on the stream), 400 without
//     X-Session-Id, 404 for an unknown host or session, 413 for an oversized
//     line, 502 when the host failed, 503 when the store failed.
//   - While an operator's freeze holds the host or the session's
//     principal (Deps.Frozen), handshakes are rejected and every message
//     but shutdown is refused; a stream open when the freeze comes ends at
//     the host's next event, capability_missing in its place (frozen.go).
//   - Every session record carries an HMAC-SHA256 keyed by
//     Deps.RecordKey over all it holds, so someone who can write to the
//     store (Redis) cannot forge a session or widen one's capabilities: a
//     record that fails the MAC is deleted, logged, audited
//     (EventForgedRecord), and the caller gets 404 unknown_session. A
//     writer can still delete sessions or replay an older record of the
//     same session, neither of which grants more than was negotiated.
//   - A session store failure fails closed: the message is refused with a
//     retryable error and never forwarded.
//   - A POST /session without credentials is an anonymous reservation:
//     until its handshake authenticates it counts against a share of its
//     own (Config.MaxAnonymousSessions, a tenth of MaxSessions by
//     default) and against Config.MaxSessionsPerClient for its client
//     address (IPv4 address or IPv6 /64), enforced by the shared store
//     across replicas. A flood of anonymous reservations therefore leaves
//     room for callers who send credentials with POST /session, and one
//     address cannot take the share alone (429 too_many_client_sessions).
//     Host.RequireCredentials refuses anonymous reservations altogether;
//     it is off by default because stock A2E clients send their
//     credential only in handshake/req.
//   - Sessions are bounded (Config.MaxSessions), carry 128-bit random ids,
//     live Config.HandshakeTimeout until authenticated and
//     Config.SessionTTL in all, and are closed after
//     Config.MaxHandshakeAttempts failed handshakes. A session id is a
//     bearer secret: logs and audit events name a session by a one-way
//     reference (the first 64 bits of a SHA-256 of the id), never by the
//     id.
//   - Sessions are bound to their principal. A stock A2E client
//     authenticates in the handshake and then sends only the session id,
//     which stays enough. A request that carries credentials
//     (Authorization: Bearer) must authenticate, and as the session's
//     principal: otherwise it gets HTTP 401 unauthorized, audited, and
//     nothing is forwarded; a handshake/req whose auth_token names someone
//     else than the request's credentials fails auth_failed.
//     Host.RequireCredentials makes credentials mandatory on /session,
//     /send and /stream, so that a leaked session id alone is useless.
//   - Each handshake outcome and each refusal is one audit event
//     (EventHandshake, EventRefusal) on Deps.Audit.
//
// Replicas sharing a Redis store must share Deps.RecordKey; the gateway
// derives it from the capability key set, so one key file is enough.
//
// Two SessionStore implementations are provided: MemoryStore for a single
// replica and RedisStore (go-redis UniversalClient) for several. Both pass
// the suite in package sessiontest.
package a2efront
