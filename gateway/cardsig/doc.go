// Package cardsig signs agent cards as A2A v1.0 specifies (§8.4, Agent
// Card Signing): a JWS (RFC 7515) whose payload is the card's canonical
// form, carried detached in the card's signatures member as
// {"protected", "signature"}.
//
// # The canonical form
//
// The card is read as the v1.0 AgentCard message of a2a.proto, the way
// the official SDKs read it before they sign or verify (@a2a-js/sdk's
// canonicalizeAgentCard, the Python SDK's MessageToDict): members are
// taken by their JSON name (or, failing that, their proto name), members
// outside the v1.0 schema are left out, a field at its proto3 default is
// left out (an optional field that was set is kept, even false), the
// signatures member is left out, and then every empty string, null, empty
// list and empty object is removed, recursively. The result is serialized
// with the JSON Canonicalization Scheme (RFC 8785): members sorted by
// their UTF-16 code units, no insignificant whitespace, numbers and
// strings as ECMAScript writes them.
//
// So a signature covers exactly the card's v1.0 members, which is what a
// stock verifier checks; members outside the v1.0 schema (the v0.3
// members, an extension's members such as capabilityGrants) are not
// covered, for any signer. A card whose v1.0 members do not have the
// types the schema gives them is not signed (ErrNotCanonical): the SDKs
// would coerce such values, and a signature over a guess would not verify.
package cardsig
