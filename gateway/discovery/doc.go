// Package discovery computes the capability snapshot that
// GET /a2a/{agent}/capabilities answers: an AG-UI AgentCapabilities object
// describing one agent as one authenticated principal may use it.
//
// # Why it exists
//
// An agent card says what an agent can do for anyone; a principal needs to
// know what it may do. Listing every skill invites calls the gateway will
// refuse and tells a principal about resources it must not learn of. The
// snapshot is the card seen through the policy: only the skills whose
// operation this principal could be issued, the grants with their caps, and
// whether it may delegate.
//
// # What it guarantees
//
//   - Nothing is issued, recorded or audited: the policy is asked with
//     policy.Decide (and DecideAmbient for legacy agents), exactly as a
//     capability request would be, but nothing is minted.
//   - Never wider than issuance. Every listed grant, operation and skill is
//     one a2a/capabilities/request by this principal could obtain (stating
//     a purpose, asking for the grant with the grants it requires). The
//     snapshot may be narrower than the truth: allow rules that only a
//     specific resource query reaches (CEL conditions on request.collection
//     or request.filter, or a later rule shadowed for query-less requests)
//     are found only for the collections listed in Input.Collections.
//   - Exclusions stay secret: resources removed by deny rules are never
//     named. A scope says only that some of it is restricted, and an
//     exclusion disjoint from the scope is not mentioned at all.
//   - Dynamic: computed from the Policy passed on each call, so a reloaded
//     policy shows on the next call.
//   - Absent means unknown: what neither the card nor the policy states is
//     omitted, never guessed; what is known to be unavailable (no tools, no
//     delegation) is stated as false. Only named card members of the right
//     type are read; the upstream's own url is never shown.
//   - Deterministic: the same input gives the same JSON.
//
// # Layout
//
// AgentCapabilities.Custom carries the capgate-specific parts under the
// Custom* keys: capabilityGrants ([]GrantCaps), ambientSkills,
// capabilityExtension, principal and policyRevision.
package discovery
