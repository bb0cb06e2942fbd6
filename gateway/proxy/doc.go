// Package proxy forwards authorised requests to one upstream agent with
// httputil.ReverseProxy.
//
// Authorisation happens before ServeHTTP, never inside Rewrite: by the time
// a request reaches this package the gateway has decided it may pass. What
// the package guarantees is what leaves the gateway: the caller's
// credentials, the forwarding headers the proxy sets itself and any
// capability header it tried to smuggle are removed, matched by normalized
// name (case folded, '_' read as '-'; see Stripped) so that a look-alike
// such as "A2A_Capability_Principal" cannot pass for the gateway's own in
// an upstream stack that folds underscores into dashes. The only capability context the upstream sees is the one the
// gateway set (see Context), and upstream credentials are the gateway's own
// (an OAuth 2.0 client-credentials token when configured). Server-sent
// event responses are streamed through, flushed event by event.
package proxy
