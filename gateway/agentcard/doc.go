// Package agentcard fetches an upstream agent's card and serves it as the
// gateway's callers should see it, and decides from it which protocol
// versions a call may speak.
//
// The card a caller sees must describe the gateway, not the agent behind
// it. Rewrite builds it so that both generations of A2A clients resolve
// it:
//
//   - supportedInterfaces (A2A v1.0) has one entry per interface the
//     gateway serves for the agent: the url is the gateway's, the
//     protocolBinding and protocolVersion the upstream's. Only JSON-RPC
//     interfaces can be fronted; an upstream's gRPC and HTTP+JSON
//     interfaces are dropped, and their versions are not offered.
//   - The v0.3 members (url, preferredTransport, protocolVersion,
//     additionalInterfaces) are kept, pointing at the gateway, where the
//     upstream card had them. The gateway serves each generation by
//     translation for an agent that serves only the other one (package
//     a2agen): a v0.3-only card also lists a v1.0 interface (Translated),
//     and a v1.0-only card also gets the v0.3 members, a v0.3 interface
//     and the v0.3 form of the security schemes (TranslatedTo1), so that
//     v0.3 clients resolve it.
//   - securitySchemes and the security requirements describe how the
//     gateway authenticates: HTTP Bearer, and OpenID Connect with the
//     discovery URL of each configured issuer, written in both the v1.0
//     form (securityRequirements) and, for cards v0.3 clients read, the
//     v0.3 form (security).
//   - The capabilityGrants are the ones the gateway's config declares (the
//     gateway enforces them, so it is the authority on them), and the card
//     declares the capability-negotiation extension.
//
// Upstream cards are read strictly (Decode), by the rules the gateway
// reads a caller's request by: a card in which an object repeats a member
// name, or holds two names that differ only in case ("url" and "URL",
// "signatures" and "ſignatures", U+017F), is refused, since readers that
// take the first, the last or a case-insensitive match would each read a
// different card. The served card is then built from the members capgate
// knows (those of A2A v0.3 and v1.0, of the capability contract and of
// the SEP) and the extensions the card declares; any other member, a lone
// look-alike such as "Signatures" among them, is dropped and logged, so
// that a client that matches names case-insensitively, as encoding/json
// does, finds in the served card only what the gateway wrote.
//
// Card signatures: an upstream card's signatures sign the upstream's card,
// and the served card differs from it (its URLs, security and grants), so
// they cannot survive the rewrite: Rewrite removes them. A Source whose
// Config.Sign is set (the gateway's, with its own key: package cardsig)
// signs each card it serves; a card it cannot sign (one whose v1.0
// members do not have their schema's types) is not served at all
// (ErrUnsigned), so a client that requires signatures never gets an
// unsigned card from it. The gateway never passes on a signature that no
// longer matches the card it accompanies.
//
// A card supports the union of the versions it declares: its
// min/max_protocol_version range, its protocolVersion, and the versions of
// its JSON-RPC interfaces; the top-level protocolVersion never hides an
// interface. CheckMethod checks a call's method name generation (v0.1,
// v0.3 or v1.0) and A2A-Version against that, before anything is
// forwarded; Validate checks what a delegated task needs.
//
// Cards are fetched with SSRF care: only from the configured upstream
// origin, with size and time limits, and never following a redirect.
package agentcard
