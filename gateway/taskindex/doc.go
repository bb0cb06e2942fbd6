// Package taskindex remembers which principal started each task an agent
// created, so that follow-up calls on a task (get, cancel, resubscribe,
// push-notification configs) are allowed only to that principal.
//
// The index learns only from the answers an upstream agent gave to calls
// the gateway forwarded on behalf of an authenticated principal; it is
// never told an owner by a caller. A task is bound to the first principal
// the index learns it from, and a later claim by anyone else does not
// rebind it: Claim reports the owner the task is bound to.
//
// The index is bounded: Memory holds at most a configured number of tasks,
// evicting the least recently used, and every binding (in memory or in
// Redis) lives for a bounded time after it was last claimed by its owner.
// Losing a binding is safe: the gateway then treats the task as unknown and
// refuses follow-up calls on it, never allows them.
package taskindex
