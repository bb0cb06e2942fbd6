// Package authn authenticates callers of capgate's listeners.
//
// A caller presents one bearer credential, in an Authorization: Bearer
// header or, on the A2E front, as a handshake's auth_token. It is either a
// JWT from a configured OIDC issuer or, for the quickstart only, a dev API
// key. Authenticator turns it into a Principal ("user:<email>" or
// "agent:<name>", its issuer, its groups and its verified claims), and
// Middleware puts that Principal in the request context before any
// protocol handling.
//
// # Guarantees
//
//   - A Principal is returned only for a credential that fully verified.
//     Every other outcome is an error wrapping exactly one of
//     ErrNoCredentials, ErrInvalidCredentials (ErrUnknownIssuer and
//     ErrTokenExpired wrap it) or ErrIssuerUnavailable. The last is a
//     technical failure, not a verdict on the credential, and it never
//     authenticates anyone.
//   - JWTs are verified by go-oidc against the issuer's published JWKS:
//     signature, iss, aud (the configured Audience or, at a protected
//     resource of its own such as an MCP server, the resource's URI:
//     AuthenticateRequestFor, RFC 8707), exp (required, no leeway) and nbf
//     (go-oidc allows a fixed 5 minutes of clock skew). No check is ever
//     skipped. The key is never taken from the token (an
//     embedded jwk or a kid pointing elsewhere is useless), and only the
//     configured asymmetric algorithms are accepted: HS*, "none" and any
//     case variant are refused by configuration validation and by parsing.
//   - The token's iss is read unverified only to choose the verifier; the
//     chosen verifier then checks it again. An iss naming no configured
//     issuer is ErrUnknownIssuer. Issuer URLs match byte for byte.
//   - Issuers are discovered lazily, on the first token naming them, and
//     rediscovered after a failure at most once per
//     Options.DiscoveryRetryInterval. An issuer that is down at startup
//     does not stop the gateway and lets no one in (ErrIssuerUnavailable)
//     until it answers. A JWKS that cannot be fetched when a key is missing
//     from the cache is also ErrIssuerUnavailable. Discovery and JWKS
//     requests refuse a jwks_uri or a redirect to plain http on a
//     non-loopback host, and are bounded by a timeout.
//   - A credential longer than MaxTokenBytes (16 KiB) is refused before any
//     parsing. A credential with exactly two dots goes to OIDC; anything
//     else to dev keys, so a dev key must not contain exactly two dots.
//   - Dev keys are held only as SHA-256 hashes. A presented key is hashed
//     and looked up by hash, and the final match is compared in constant
//     time. Dev keys are unsalted and meant for the quickstart only.
//
// # Principal mapping
//
// The user claim (default "email") gives user:<value>; with
// RequireEmailVerified a token whose user claim is present but not verified
// is refused, never mapped to an agent. Without the user claim, the agent
// claim (default "azp") gives agent:<value>. Note that an issuer whose
// human users may obtain tokens without the user claim would then map them
// to agent:<client>: configure such an issuer's AgentClaim with care.
// Groups come from the groups claim (an array of strings, or one string);
// a groups claim of any other shape refuses the token. Names are not
// normalised (no case folding) and must be printable without spaces.
//
// # Not done here
//
// Middleware leaves the Authorization header on the request; the proxy
// strips it before forwarding. Authorization (what the principal may do)
// belongs to the policy package.
package authn
