// Package captoken mints, verifies and attenuates capability tokens.
//
// A capability token is a compact JWS (typ "cap+jwt") signed by the
// gateway's own key set. It designates resources (through sealed, opaque
// handles) and authorises a fixed set of operations on them for one holder.
// The package performs no I/O: keys are handed in, clocks are injected, and
// revocation is left to the caller, keyed on the capability and revocation
// ids the claims carry.
package captoken
