// Package admin is the admin API that security teams use, served on its
// own listener, never on the public one: revoke a capability (and with it
// every descendant), a revocation id or everything a principal holds;
// list a principal's capabilities with their revocation state; reload and
// read the policy. Every caller authenticates like any other and must be
// an admin principal or in an admin group; every revocation is an audit
// event naming the operator.
package admin
