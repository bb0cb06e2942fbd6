// Package proxy forwards authorised requests to one upstream agent with
// httputil.ReverseProxy.
//
// Authorisation happens before ServeHTTP, never inside Rewrite: by the time
// a request reaches this package the gateway has decided it may pass. What
// the package guarantees is what leaves the gateway:
//
//   - the caller's credentials, its forwarding headers and any capability
//     header it tried to smuggle are removed, matched by normalized name
//     (case folded, '_' read as '-'; see Stripped), so that a look-alike
//     such as "A2A_Capability_Principal" cannot pass for the gateway's own
//     in an upstream stack that folds underscores into dashes;
//   - the caller's trailers are never forwarded: they would pass no header
//     check;
//   - X-Forwarded-For, -Host and -Proto are the proxy's own;
//   - a front that decided the request attaches an Outbound, applied to the
//     one copy of the request the proxy sends after all of the above: the
//     body it built (SetBody, which also drops what described the caller's
//     body), its own headers, and the capability context it vouches for.
//     The only capability context the upstream sees is that one, and a
//     caller's Connection header cannot remove any of it.
//
// On the way back, the answer to a call scoped to a capability keeps only
// the headers a caller needs, in shapes that carry no free text
// (ScopedResponseHeaders), and no trailers (ScopeAnswer): the body is
// mediated, so its headers must not carry what it may not.
//
// Upstream credentials are the gateway's own (an OAuth 2.0
// client-credentials token when configured). Server-sent event responses
// are streamed through, flushed event by event.
package proxy
