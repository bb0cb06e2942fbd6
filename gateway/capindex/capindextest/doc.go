// Package capindextest is the one conformance suite every capindex.Index
// implementation must pass.
package capindextest
