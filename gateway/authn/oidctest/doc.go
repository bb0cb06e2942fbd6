// Package oidctest runs an in-process OIDC issuer for tests.
//
// An Issuer serves /.well-known/openid-configuration and /jwks from an
// httptest.Server on a loopback address, signs tokens with a real generated
// key (RS256 by default, or ES256 or EdDSA), and can rotate its key or
// pretend to be down. Its /authorize and /token endpoints run the
// authorization-code flow with PKCE (S256) for the user SignInAs names, so
// a relying party can be tested through real HTTP redirects. It also builds the tokens an attacker would send: an
// HS256 token keyed with the issuer's public key, "alg": "none" in any
// spelling, a token signed by an unknown key reusing the issuer's kid, a
// token whose embedded jwk signs it, and a token whose payload was swapped
// after signing.
//
// It is a normal package so that any package's end-to-end tests can use
// it; it imports nothing from capgate. Failures to build a token call
// t.Fatalf, so its methods must run on the test's goroutine.
package oidctest
