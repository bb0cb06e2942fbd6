// Package pushrelay is the gateway's push-notification relay: it keeps
// what a caller asked an agent to push to (its URL and credentials)
// away from the agent, hands the agent a relay URL of the gateway's own
// with a per-config secret instead, and delivers what the agent pushes
// there to the caller's URL once the front has run it through the
// answer pipeline.
//
// # Records
//
// A Record is one relayed push config: the caller's target (URL, token,
// authentication), whose it is (agent, owner, task, the capability it
// was set under) and the SHA-256 of the secret the agent must present.
// The secret itself is never stored: NewRecord returns it once, for the
// config the agent receives. A Store keeps records sealed with AES-256-GCM
// under a key derived from the gateway's key set (Sealer), bound to the
// record's key as additional data, so whoever can read or write the
// shared store (Redis) can neither learn a caller's credentials nor forge
// or move a record. Memory serves one replica; Redis serves several, and
// a store that cannot answer fails the caller's call and the agent's
// push closed (ErrUnavailable).
//
// One principal (a record's Owner) holds at most a bound of records at
// once, on every agent together: Put refuses a new record beyond it
// (*PrincipalFullError, ErrPrincipalFull), and Delete or expiry frees its
// place. Memory counts under its lock; Redis claims the place in one
// script on the owner's sorted set before the record is written, so
// replicas putting at once cannot together exceed the bound.
//
// # Targets
//
// A caller's URL is checked when the config is set (CheckTarget): https
// unless Targets.AllowHTTP, and no loopback, private, link-local,
// unspecified, multicast or other special-purpose address (this network,
// carrier-grade NAT, benchmarking, reserved, and the IPv6 ranges that
// carry an IPv4 address: IPv4-compatible, NAT64, 6to4, Teredo) unless
// Targets.AllowPrivate, for an address literal or for every address its
// name resolves to. The gateway's own relay URLs are refused however the
// host is spelled (case, trailing dot, default port). The same
// address check runs again when a delivery dials (Targets.Control, a
// net.Dialer Control function), so a name that resolves elsewhere by then
// (DNS rebinding) reaches nothing it should not. Deliveries follow no
// redirects.
//
// # Delivery
//
// A Deliverer posts each push to the caller's URL with the caller's
// token (X-A2A-Notification-Token) and authentication (Bearer or Basic),
// from a bounded queue served by a fixed number of workers, retrying a
// failed attempt (a transport error, 408, 429 or 5xx) with exponential
// backoff up to a bounded number of attempts. A push that finds the queue
// full is dropped and reported, never queued without bound; Close stops
// the workers and waits for them.
package pushrelay
