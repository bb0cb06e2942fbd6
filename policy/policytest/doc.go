// Package policytest runs policy expectation tables and builds the
// quickstart world (README, "The quickstart world") for tests.
//
// It exists so that security teams can state what their policy must do as
// data (a YAML table of principal + request → expected outcome) and check it
// with `capgate policy test`, exactly as the policy package's own tests and
// the gateway's tests do. A Suite is decided against a *policy.Policy through
// its public API only, so a passing table says something about the policy,
// not about this package.
//
// Guarantees: Parse is strict (unknown fields are errors, never ignored);
// a case fails when the outcome is wider than expected as well as when it
// is narrower (extra grants, extra operations or a missing deny are
// failures); Run never stops at the first failing case.
package policytest
