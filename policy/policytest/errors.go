package policytest

import "errors"

// Errors returned by Parse.
var (
	// ErrSyntax means the test table is not well-formed YAML for the format
	// (unknown fields included).
	ErrSyntax = errors.New("policytest: invalid test table")
	// ErrVersion means version is not 1.
	ErrVersion = errors.New("policytest: unsupported version")
	// ErrCase means a case is incomplete or contradictory.
	ErrCase = errors.New("policytest: invalid case")
	// ErrUnknownPrincipal means a case names a principal the table lacks.
	ErrUnknownPrincipal = errors.New("policytest: unknown principal")
)
