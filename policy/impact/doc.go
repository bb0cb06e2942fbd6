// Package impact answers the question a security team asks before every
// policy change: what will the new policy allow or refuse that the old one
// does not?
//
// # Why it exists
//
// A policy test checks the cases its authors thought of. A change can
// widen access for a principal, a resource or a request nobody wrote a
// case for. Compare decides a whole universe of requests under both
// policies, through the policy package's own Decide, DecideA2E and
// DecideAmbient, and reports every decision that differs, grouped by the
// rule that caused it.
//
// # The universe
//
// NewUniverse builds the requests from what is known: the catalog's
// agents, grants, A2E hosts and skills; the principals, groups, issuers,
// claims, collections and filters both policies name (policy.Vocabulary);
// and the principals and requests given as Sources (a policy's test
// cases, an audit trail). Synthetic principals are the unnamed principal,
// every named id, every group alone, every pair of groups and every
// all_groups set, each also with every named issuer and claim. Every grant
// is requested on its own (with the grants it requires), on no resource,
// on every named collection and on every named filter value, with and
// without a purpose.
//
// # Guarantees and limits
//
// A difference is a widening when the new decision issues a grant the old
// one denied, or issues it with more operations, more resources (fewer
// exclusions), a longer lifetime, a deeper delegation, or without the
// approval the old one needed; or allows an A2E capability or an ambient
// call the old one refused. A resource change that is neither provably
// wider nor provably narrower counts as both. The universe is finite: a
// condition that reads values it does not vary (the time, a claim no rule
// names) may hide a difference, so the report lists every CEL condition
// of either policy that its decisions did not evaluate both true and
// false. Compare never fails: decisions are values, not errors.
package impact
