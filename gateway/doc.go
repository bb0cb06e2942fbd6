// Package gateway is capgate's HTTP surface and the wiring that builds it
// from one config file. It holds only three things: the router (health,
// readiness, drain, the JWKS, metrics), the admin listener's handler, and
// FromConfig, which opens every store, key set, policy watcher and front.
// FromConfig builds one platform.Runtime first (the clock, the logger,
// the tracer, the metrics, the shared Redis and the environment) and
// hands it to every part; each package builds its own part from the
// config, so the wiring only hands them the runtime and their
// collaborators (approval.Open, audit.Open, console.FromConfig,
// ratelimit.New). Both fronts are built in one place, the same way
// (a2afront.ConfigFrom and New, a2efront.Open), and mounted by New
// (Fronts). The work of deciding a call lives in the subpackages, each
// testable on its own:
//
//	gateway/platform    what every part shares at run time
//	gateway/enforce     the capability decision every front shares
//	gateway/answer      the answer pipeline: strict check, processors, SSE
//	gateway/a2afront    the A2A front: routing, the SEP flows, gating
//	gateway/a2atasks    A2A task ownership: the gate and the answer processor
//	gateway/a2agen      translation between A2A v1.0 and v0.3
//	gateway/a2efront    the A2E front: handshake, narrowing, enforcement
//	gateway/a2e         the A2E wire protocol
//	gateway/admin       the admin API for security teams
//	gateway/console     the operator console on the admin listener
//	gateway/approval    requests waiting for human approval, and their store
//	gateway/recordseal  the MAC of records in a shared store (approvals, A2E sessions)
//	gateway/authn       OIDC (go-oidc) and dev-key authentication
//	gateway/jsonrpc     the strict JSON-RPC codec and the error codes
//	gateway/sep         the capability extension's wire types
//	gateway/proxy       the reverse proxy to one agent, and its header hygiene
//	gateway/agentcard   fetching, rewriting and validating agent cards
//	gateway/discovery   per-principal AG-UI capability snapshots
//	gateway/capindex    capability id → token, in memory or Redis
//	gateway/taskindex   who started each task, in memory or Redis
//	gateway/ratelimit   per-principal rates and live-capability caps
//	gateway/audit       the hash-chained audit trail
//	gateway/metrics     Prometheus metrics
//	gateway/cors        cross-origin access for browser callers
//	gateway/config      the config file: strict loading and validation
//	gateway/client      a Go client for agent authors
//
// # One request through the packages
//
// Take alice invoking retrieve_document on the documents agent:
//
//		POST /a2a/documents  Authorization: Bearer <token>
//		{"jsonrpc":"2.0","id":7,"method":"a2a/skill/invoke",
//		 "params":{"skill":"retrieve_document","capabilityId":"cap_…",
//		           "arguments":{"resourceHandle":"rh_…"}}}
//
//	 1. The router hands /a2a/{agent} to the A2A front, which starts a span
//	    and authenticates the bearer credential (authn): an OIDC ID token
//	    verified against its issuer's JWKS, or a dev key. No principal, no
//	    further step: 401.
//	 2. The front reads the body once, bounded, and decodes it strictly
//	    (jsonrpc): duplicate or case-variant member names anywhere, too deep,
//	    too large, or not JSON-RPC is refused here.
//	 3. The method decides the path. a2a/skill/invoke asks the decision
//	    core (enforce.Checker.Decide) with what the call presented and wants:
//	    the capability is found by id in the index (capindex) and its token
//	    verified (captoken); the caller must be its holder; neither it nor
//	    any ancestor may be revoked (revocation: any store error refuses);
//	    the skill's operation must be in it. The answer is a Scope (the
//	    claims and the opened handle → id map) or a Refusal with a stable
//	    reason, which the front puts on the wire with its JSON-RPC code.
//	 4. Scope.RewriteArguments rewrites the handles to the real resource
//	    ids (every handle must be the capability's), and the invocation is
//	    re-encoded without the token.
//	 5. The proxy forwards it: the caller's Authorization, cookies and any
//	    A2A-Capability* header are removed, and the capability context the
//	    gateway vouches for is set in their place (A2A-Capability-Id,
//	    -Principal, -Holder, -Operations).
//	 6. The agent's answer comes back through the answer pipeline (answer):
//	    each response object is checked as strictly as a caller's body, then
//	    run through the front's processors in order: task ownership
//	    (a2atasks: the tasks it names become alice's), id mapping
//	    (answer.MapIDs: every real id of the capability becomes alice's
//	    handle, other known ids are redacted), translation to the caller's
//	    generation. A stream goes the same way, event by event, and a
//	    revocation ends it at its next event.
//	 7. An audit event records the decision (audit), and the metrics count
//	    it (metrics). Had any check refused, the front would have answered
//	    with that check's JSON-RPC error and the agent would have seen
//	    nothing.
package gateway
