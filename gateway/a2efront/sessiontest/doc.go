// Package sessiontest is the one conformance suite every
// a2efront.SessionStore implementation must pass.
package sessiontest
