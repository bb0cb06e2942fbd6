// Package revocation records revoked capabilities and answers, for a
// capability and all of its ancestors, whether any of them was revoked.
//
// Every Store fails closed: when it cannot give a trustworthy answer it
// returns an error, and callers must treat an error as "not allowed".
package revocation
