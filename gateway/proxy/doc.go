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
// Upstream credentials are the gateway's own (an OAuth 2.0
// client-credentials token when configured). Server-sent event responses
// are streamed through, flushed event by event.
package proxy
