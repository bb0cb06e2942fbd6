// Package throttle bounds the audit events of refused calls (the admin
// API's admin.refused, the console's console.refused) without losing
// their signal: a flood of unauthenticated requests must not grow the
// audit file without limit.
//
// Per client address (an IPv6 address counts by its /64, which one host
// usually holds whole) and per event kind, at most Options.Events events
// are written in a window of Options.Window that starts with the first
// one. Those past that are suppressed and counted; when the window ends
// (swept by Run within a quarter of a window, or at the next refused call
// of anyone, before that call's own event), one summary event of
// the same kind is written, with decision "suppressed", the client,
// the number suppressed and the first and last of their times. At most
// Options.Clients windows are held: a new one evicts the one that began
// first, writing its summary early, so memory stays bounded and no count
// is lost. Close writes every pending summary.
//
// The audit trail's chain covers the summaries like any event. The
// caller counts every refused call in its metrics, suppressed or not.
package throttle
