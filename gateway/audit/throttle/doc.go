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
// is lost. Against a flood from many addresses, at most Options.Total
// events (1000 by default) are written per window for all clients
// together; past that, events of clients with budget left are counted
// under the client "*" and summarized the same way. Close writes every
// pending summary.
//
// The client address is the connection's: behind a reverse proxy every
// caller shares the proxy's address, and so its budget.
//
// The audit trail's chain covers the summaries like any event. The
// caller counts every refused call in its metrics, suppressed or not.
package throttle
