// Package a2afront is the A2A front: it decides every JSON-RPC call
// addressed to a fronted agent at /a2a/{agent} and forwards only what it
// allowed. It is shaped like the A2E front: Config says what is served,
// Deps are the collaborators (the runtime, key set, verifier, index,
// revocation store, policy, audit), New builds it without network I/O,
// and Mount adds its routes to a router.
//
// What is not A2A's lives elsewhere, and the front wires it: issuance,
// approvals, attenuation and revocation in package issue (shared with the
// MCP front), the capability decision in package enforce (checks.go puts its refusals on
// the JSON-RPC wire), the answer pipeline in package answer (answers.go
// installs it), task ownership in package a2atasks (tasks.go), and
// translation between generations in package a2agen (translate.go). The
// front keeps routing (serve.go) and the dispatcher (dispatch.go), the SEP
// flows (request, approval, attenuate, revoke, delegate), gating of plain
// agents, cards, batches and the upstream hop.
//
// # What it decides
//
// Every call is decoded once and routed by its method:
//
//   - a2a/capabilities/request issues what the grant permits ∩ what the
//     caller asked for ∩ what policy allows, with opaque resource handles.
//     The agent's resources come from the config's catalog or from the
//     agent's a2a/resources/resolve hook; the answer is re-checked against
//     the query, so an agent that answers too broadly cannot widen it. A
//     whole_agent grant names no resources and resolves nothing; an agent
//     with neither a catalog nor the hook is refused with detail
//     no_resolver (request.go).
//     When the policy says a grant waits for human approval, nothing is
//     issued: the request is held in the approval store and answered with
//     a pending result; asking again with its approvalId returns, once,
//     exactly what was approved, or nothing when the policy then in
//     force no longer allows all of it.
//     a2a/capabilities/approval/status tells the principal who asked where
//     the request stands, without issuing anything (approval.go);
//     anyone else is told the id is unknown.
//   - a2a/skill/invoke must name a capability that passes every check of
//     the decision core (enforce.Checker.Decide): found and verified, held
//     by the caller, not revoked, covering the skill's operation; every
//     handle named must be the capability's, and is rewritten to its real
//     id on the way out (enforce.Scope.RewriteArguments).
//   - a2a/capabilities/attenuate and revoke are answered by the gateway and
//     never forwarded; attenuation only ever narrows.
//   - A send that carries capabilities is a delegation: each one becomes a
//     child held by the receiving agent, and only the children travel.
//     A capability for one of the gateway's MCP servers (Config.Delegable)
//     is delegated the same way; the agent uses its child at /mcp/{server}.
//   - On an agent with gated messaging (messages.require_capability),
//     every send and every follow-up on a task must present a capability
//     for the agent that passes the same checks, covering the operation
//     of the skill the message names, wherever it names it (gate.go,
//     skills.go: places that disagree are refused); handles in the message
//     become real ids, and the call goes upstream scoped to it.
//   - The answer to a call scoped to a capability (an invocation, a gated
//     message) never carries a real id: each of the capability's ids
//     becomes the caller's handle, other known ids are redacted or refuse
//     the answer, and a stream re-checks revocation at every event
//     (idmap.go: answer.MapIDs with the agent's catalog as enforce.Known).
//   - Other known methods are forwarded once the agent's card says it can
//     serve them; unknown methods are refused, never forwarded.
//   - A v1.0 call to an agent that serves v0.3 and not v1.0 is decided as
//     the caller made it, then translated to v0.3 on the way out, and the
//     answers back into v1.0 (translate.go, package a2agen); a v0.3 call
//     (v0.3 method names, no A2A-Version header or 0.3) to an agent that
//     serves v1.0 and not v0.3 likewise, translated to v1.0 and back.
//     What cannot be translated is refused with the member named, before
//     anything is forwarded.
//   - A call of the v1 service in an earlier spelling the gateway accepts
//     (SetTaskPushNotificationConfig, ListTaskPushNotificationConfig,
//     TaskResubscription, TaskSubscription, GetAuthenticatedExtendedCard)
//     is decided under its own name, and forwarded under its v1.0 name
//     (CreateTaskPushNotificationConfig, ListTaskPushNotificationConfigs,
//     SubscribeToTask, GetExtendedAgentCard), the only names a v1.0 agent
//     such as a2a-go/v2's knows (inV1Name); for a v0.3 agent it is
//     translated to the v0.3 name, as its v1.0 name is.
//   - A call that names a task (get, cancel, resubscribe, push-notification
//     configs, a send continuing or referencing one) is allowed only to the
//     principal that started it (package a2atasks); anyone else is told
//     the task does not exist. Per agent, task_ownership off forwards as
//     before.
//   - A push config set on a call scoped to a capability (or on any call,
//     per agent push_relay: all) is relayed (push.go, pushcfg.go, package
//     pushrelay): the caller's URL and credentials are sealed in the relay
//     store, and the agent gets the relay URL /a2a/{agent}/push/{id} with
//     a per-config secret; the answers of set, get and list show the
//     caller its own config (pushAnswer), and delete forgets it. What the
//     agent posts to the relay URL (pushin.go) must present the secret,
//     be about the config's task, and pass the answer pipeline under the
//     capability, still live, before it is queued for the caller. Without
//     a relay (or with push_relay: off) a push config on a scoped call is
//     refused (-32004 push_not_relayed); a send carrying a push config to
//     an agent whose card declares no push notifications is -32004.
//     ListTaskPushNotificationConfigs, v1.0's plural, is the list method
//     as the other spellings are.
//
// # Not built yet
//
// The relay holds a push only in memory between the agent's POST and its
// delivery: a replica that stops drops what it has queued (counted as
// closed), and the agent is not told. A push config set on an unscoped
// call of an agent with push_relay: scoped is forwarded as the caller
// wrote it, straight to the caller's URL, as before the relay. A
// caller's config id is kept for the agent (so get and delete by it
// work). Deliveries are not signed by the gateway: the caller's receiver
// authenticates them by its own token and credentials only.
//
// # One way out
//
// Every request that leaves the front for an agent is an outbound
// (forward.go) carried by the agent's proxy: single calls and streams,
// batch elements and resolutions alike. So the same header hygiene
// applies to each: the caller's credentials and capability headers never
// reach the agent, and the trusted headers it receives are the gateway's.
// The outbound is the request's one context value for the whole hop: the
// proxy builds its one copy of the caller's request from it, and the
// answer hook and the error handler read the call back from it.
//
// The answers come back the same way: the proxy's response hook is the
// answer pipeline (package answer), which checks each JSON-RPC response
// object as strictly as a caller's body (a repeated or case-variant
// member is -32603 malformed_answer, and ends a stream) and runs it,
// unary or one stream event at a time, through the front's processors in
// order: task ownership (who owns the tasks an answer names; listings
// filtered to the caller's), id mapping, then generation translation.
package a2afront
