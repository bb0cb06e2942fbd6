// Package policy holds the grant policy that security teams write: who may
// obtain which capability grants, on which resources, for how long and how
// deep they may be delegated; which A2E capabilities they may negotiate; and
// which legacy agents they may call without a capability at all.
//
// # Why it exists
//
// The gateway issues capabilities; this package bounds them. It is the one
// place where grant ∩ request ∩ policy is computed, so that issuance,
// discovery snapshots and `capgate policy explain` can never disagree. It
// does not import the gateway: the gateway hands it a Catalog of agents,
// grants, skills and A2E hosts, and every name in a policy is checked
// against it when the policy loads.
//
// An agent's resources, when the config lists them (its catalog), are
// answered to a resource query through a ResourceIndex: indexed once by
// collection and by attribute value, so that a query reads only the
// resources that can match it, whatever the catalog's size.
//
// # The file
//
// A policy file is YAML, `version: 1`, with three rule sections:
//
//	rules:    A2A grant rules (agents, grants, operations, resources,
//	          max_ttl, max_delegation_depth, require_purpose, conditions)
//	a2e:      A2E rules (hosts, capabilities)
//	ambient:  capability-less calls to legacy agents (agents, skills, methods)
//
// Every rule has an id, an effect (allow, the default, or deny), a
// principals matcher and optional CEL conditions. A matcher sets any of ids,
// issuers, groups (any of), all_groups (every one of) and claims
// (name → value or list of values); every criterion set must hold. A
// matcher must say something: `any: true` is how a rule matches everyone.
// An MCP server the gateway fronts is in the Catalog as an agent is: a
// rule names it in agents, its grants in grants, and its tools are the
// skills whose operations bound what a capability lets its holder call;
// resources select from the server's catalog as from an agent's.
// "*" in agents, grants, hosts, capabilities, skills or methods means all,
// and must stand alone. An optional defaults section sets max_ttl and
// max_delegation_depth for allow rules that set none; without it they are
// DefaultMaxTTL and DefaultMaxDelegationDepth (no delegation).
//
// CEL conditions see principal.{id,issuer,groups,claims},
// request.{agent,grant,grants,operations,collection,filter,purpose,expires,
// skill,method,host,capability,capabilities} and now. Names are declared
// one by one, so a typo fails at load; a condition must be bool-typed; its
// size and runtime cost are bounded (MaxConditionLength, ConditionCostLimit).
//
// # Semantics, as a firewall
//
//   - Deny rules that match always win, across the whole section. A deny rule
//     without operations or resources denies the grant; with operations it
//     removes them; with resources it denies the grant when the request's
//     resource query is inside them, and otherwise excludes them
//     (GrantDecision.Excluded, enforced by Permits).
//   - For each requested grant, the first allow rule in file order whose
//     principals, resources, purpose and conditions match decides what is
//     issued. Operations are then grant ∩ rule ∩ requested − denied (a "*"
//     grant is expanded only to what the rule names); resources are rule ∩
//     request; expiry is min(requested, now + max_ttl); depth is the rule's.
//   - A grant whose requires are not issued in the same decision is denied.
//   - Anything no rule allows is denied. A condition that cannot be
//     evaluated makes an allow rule not match and a deny rule match.
//
// # Guarantees
//
// Load reports every problem with file:line:col and refuses the policy if
// any is an error; nothing is half-applied. A *Policy is immutable and safe
// for concurrent use. Decide, DecideA2E and DecideAmbient never return an
// error: a denial is a Decision with reasons naming the rule and why. What
// Decide issues is never wider than the grant, the request or the matching
// rule. Watcher keeps serving the last good policy when a new file is
// broken.
package policy
