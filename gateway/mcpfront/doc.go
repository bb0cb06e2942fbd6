// Package mcpfront is the MCP front: capgate in front of Model Context
// Protocol servers, at /mcp/{server}, over Streamable HTTP. It exists so
// that a capability bounds what an agent does with its tools, as it
// bounds what an agent may ask another agent over A2A.
//
// It speaks the revisions the official Go SDK (v1.8.0) implements: the
// stateless 2026-07-28 (server/discover, Mcp-Method and Mcp-Name headers)
// and the session-based 2025-11-25 before it (initialize, Mcp-Session-Id).
// It has the shape of the other fronts (Config, Deps, New, Mount) and
// their split: it translates its wire into "principal, presented
// capability, target, operation, resources", the decision core
// (package enforce) decides, and the answer pipeline (package answer)
// processes what comes back.
//
// # What it guarantees
//
//   - Every request is authenticated (dev keys or OIDC, package authn)
//     before anything else. A request without valid credentials gets 401
//     with WWW-Authenticate: Bearer resource_metadata="…", and the
//     server's Protected Resource Metadata (RFC 9728) is served at
//     /.well-known/oauth-protected-resource/mcp/{server}, naming the
//     configured OIDC issuers. An OIDC token must name the server's
//     resource URI in its aud (RFC 8707; authn.AuthenticateRequestFor): a
//     token for the gateway's A2A audience or for another server is
//     refused there. The caller's credentials and capability
//     headers never reach the server (package proxy). With upstream_auth
//     the server gets the gateway's own credential instead: a static
//     bearer token read once from an environment variable or a file, or
//     an OAuth 2.0 client-credentials token (proxy.StaticBearer,
//     proxy.ClientCredentials); a credential that cannot be read is a
//     config New refuses.
//   - Bodies are read by the strict codec (package jsonrpc): a duplicate
//     or case-variant member anywhere refuses the body, and a batch is
//     refused. A tools/call's params and arguments of the common, plain
//     shape are then read by a scan of those checked bytes (capscan.go,
//     argscan.go); every other shape, and every refusal, is decoded, and
//     a fuzz target each holds the two to the same result.
//   - tools/call must present a capability, in
//     params._meta["dev.capgate/capability"] ({capabilityId} or
//     {capabilityToken}) or as a token in the A2A-Capability header, for
//     this server, held by the caller, live, and covering the operation
//     the config gives the tool. Each argument the config names as a
//     resource (a JSON pointer) must hold a handle of the capability (or
//     a list of them) and is rewritten to the real id; no real id the
//     gateway knows may appear anywhere in the arguments. A tool the
//     config does not name is refused. Every refusal is a JSON-RPC error
//     with capgate's stable code and data.reason (-32040 without a
//     capability), and the server sees nothing of the call. The
//     capability is taken out of the _meta the server receives.
//   - A tools/call's answer, unary or streamed, passes the answer
//     pipeline: each real id of the capability becomes the caller's
//     handle in every string (content, structuredContent, resource
//     links, server notifications on the stream), other catalog ids are
//     redacted or refuse the answer, and a stream re-checks revocation at
//     each event.
//   - tools/list lists only the tools the config names, and of those,
//     when a capability is presented, the ones whose operation it covers;
//     without one, the ones the policy in force could grant the caller
//     (package discovery's probe; with no policy, every named tool).
//   - a2a/capabilities/request, approval/status, attenuate and revoke
//     sent to /mcp/{server} are answered by the gateway and never
//     forwarded, by the same issuer as at the A2A front (package issue):
//     what the server's grant permits ∩ what the caller asked ∩ what the
//     policy allows, opaque handles for the resources of the server's
//     catalog that match, a request held for human approval when the
//     policy says so. The server is the capability's audience and the
//     policy's target, named in rules as an agent is. A front built
//     without signing keys or a policy refuses these methods
//     (grant_denied).
//   - Delegation across protocols: a capability for a server's grant is
//     attenuated and delegated to an agent over A2A exactly as an agent's
//     (a send to /a2a/{agent} carrying it; the A2A front accepts the
//     capabilities of the gateway's MCP servers, a2afront.Config.Delegable).
//     The agent then calls the server's tools here with its child, and a
//     revocation of any ancestor refuses the child's next call (-32043) on
//     every replica. The audit trail shows the chain: capability.delegate
//     (caller, to_agent, parent and child ids), and each mcp.tools.call
//     names the capability presented and, once verified, its id, parent
//     id, the principal it acts for, its holder and depth.
//   - MCP sessions (Mcp-Session-Id) are bound to the principal that
//     opened them: the session id a server assigns in an answer is bound
//     to the caller in the session index (the task index's store, on Redis
//     when the gateway has one), and a request naming a session is
//     forwarded only for that principal. Anyone else, and a session the
//     gateway never saw opened, gets 404 (a client then opens a new
//     session) and the server sees nothing; an index that cannot answer
//     refuses (fail closed). A request naming a session in more than one
//     Mcp-Session-Id value, or in a look-alike header (Mcp_Session_Id), is
//     refused (400): the server might read the value the front did not.
//   - With resources: {operation} in the config, resources/read and
//     resources/list are served scoped to a capability (resources.go): a
//     resource's URI is its catalog id, named by a handle of the
//     capability covering the operation; resources/read's uri is rewritten
//     to the real URI (a real id anywhere in the params is refused), and
//     resources/list keeps only the capability's resources. Both answers
//     pass the pipeline, so the caller sees its handles, never a real URI;
//     without a capability, -32040. Without the section both are refused.
//   - With prompts: {operation} in the config, prompts/list and
//     prompts/get pass per policy (prompts.go): only for a caller the
//     policy could grant the operation on the server, anyone else being
//     refused grant_denied before the server sees anything; a real id of
//     the catalog anywhere in their params (a prompt's arguments) is
//     refused (-32045), as the prompt acts under no capability; every
//     catalog id in their answers is redacted. Without the section they are
//     refused.
//   - In a session, the standalone stream (GET /mcp/{server}) is opened
//     only for the session's principal, and every event on it (the
//     server's requests and notifications) passes the answer pipeline
//     with the catalog's ids redacted; the client's responses to the
//     server's requests (a POSTed JSON-RPC response) and the session's end
//     (DELETE) are forwarded in the caller's own session only, a response
//     naming a real id of the catalog refused (stream.go).
//   - initialize, server/discover, ping and the client's notifications
//     are forwarded on authentication alone; every other method is
//     refused (-32601), never forwarded.
//   - While an operator's freeze holds the server or the caller's
//     principal, every message but the capability-negotiation methods,
//     with a capability or without, is refused -32043 (data.detail
//     "frozen") and the server sees nothing; so are the session's
//     standalone stream, its end and the client's responses (403). A
//     stream open when the freeze comes (the standalone stream, a
//     streamed answer) ends at its next event, the refusal in the
//     event's place (frozen.go).
//
// # Not built yet
//
//   - resources/templates/list, resources/subscribe and completion
//     (refused, -32601); the standalone stream and DELETE outside a
//     session (405). A capability revoked
//     does not end a session's standalone stream (it acts under none).
//   - tools/list without a capability, and prompts, probe the policy as
//     capability discovery does (no resource query, then each catalog
//     collection): a rule reachable only under a narrower filter or a
//     condition the probe does not meet allows less than could be
//     granted.
//   - Tools whose schema mirrors arguments into Mcp-Param-* headers (the
//     front drops those headers, so such a server refuses the call), and
//     the input-required retries of 2026-07-28 (inputResponses,
//     requestState pass unread).
package mcpfront
