// Package policy holds the grant policy that security teams write: who may
// obtain which capability grants, on which resources, for how long and how
// deep they may be delegated.
//
// A denial is a Decision, not an error. An error from this package means the
// policy could not be loaded or evaluated.
package policy
