// Package cors lets browser pages on other origins call the gateway.
//
// It is off by default: with no allowed origins the middleware is the
// identity, and a cross-origin page cannot call the gateway. With a list of
// allowed origins, a preflight (OPTIONS with Access-Control-Request-Method)
// is answered by the gateway itself and never reaches the next handler, so
// it is never forwarded to an upstream agent. A preflight from an origin
// that is not allowed gets an answer without any Access-Control-Allow-*
// header, which the browser treats as a refusal.
//
// Callers authenticate with an Authorization header, which a page sets
// itself and which needs no credentials mode; AllowCredentials (cookies,
// TLS client certificates) is therefore off unless configured, and it is
// never allowed together with the "*" origin: that would let every site on
// the web make credentialed calls as the user.
//
// The preflight and origin matching are done by github.com/rs/cors; this
// package fixes the headers and methods the gateway's A2A and A2E fronts
// use, and validates the configuration.
package cors
