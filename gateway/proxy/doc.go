// Package proxy forwards authorised requests to one upstream agent with
// httputil.ReverseProxy.
//
// Authorisation happens before ServeHTTP, never inside Rewrite: by the time
// a request reaches this package the gateway has decided it may pass. What
// the package guarantees is what leaves the gateway: the caller's
// Authorization header and any capability headers it tried to smuggle are
// removed, the only capability context the upstream sees is the one the
// gateway set (see Context), and upstream credentials are the gateway's own
// (an OAuth 2.0 client-credentials token when configured). Server-sent
// event responses are streamed through, flushed event by event.
package proxy
