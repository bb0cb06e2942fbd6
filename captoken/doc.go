// Package captoken mints, verifies and attenuates capability tokens: the
// unforgeable, task-scoped credentials of the A2A capability-negotiation
// SEP.
//
// It exists so that every rule about what a capability token is lives in
// one small package with no I/O (apart from the key-file helpers), no
// dependency on the gateway, and an API that is hard to misuse. The
// gateway decides what to grant; captoken makes the grant tamper-proof and
// makes sure a delegated copy can only be narrower.
//
// # Token
//
// A token is a compact JWS with header {"alg", "kid", "typ": "cap+jwt"},
// signed with the active key of the gateway's own KeySet (Ed25519 by
// default, ES256 optional; kid = RFC 7638 thumbprint). Its Claims name the
// issuer, the principal, the holder, the audience agent, the capability
// and revocation ids, the grant, operations and opaque resource handles,
// exp/nbf/iat, the ancestors' revocation ids, the delegation depth and its
// maximum, the purpose and the policy revision. The handle → resource-id
// map travels sealed inside the token (a compact JWE, dir + A256GCM, with a
// separate 256-bit sealing key set), so the holder never sees real ids.
//
// # Guarantees
//
//   - Verify takes an explicit algorithm list, never a default; it refuses
//     alg none (any case), HMAC, and any header parameter other than alg,
//     kid and typ, so a token can never supply its own key (jwk, jku, x5u,
//     x5c) and nothing is ever fetched. The key comes only from the KeySet,
//     by kid, and must match alg.
//   - Cheap checks come first: a size cap (MaxTokenSize) before parsing,
//     the header before any signature work.
//   - The claims must be byte-for-byte the canonical encoding Mint writes,
//     so there is exactly one way to spell a given claims set; exp is
//     required; iss must equal the configured issuer.
//   - Every error of Verify except ErrExpired and ErrNotYetValid matches
//     ErrInvalid, so the gateway maps errors to "capability_invalid" or
//     "capability_expired" with one errors.Is each.
//   - Attenuate returns a new token and never modifies its parent. The child
//     has a subset of the operations and handles, an expiry no later, a
//     depth one greater than the parent's and within the smaller of the
//     parent's and the policy's cap, fresh ids, and every ancestor's
//     revocation id; otherwise ErrNotSubset,
//     ErrNotAttenuable or ErrDepthExceeded (all ErrAttenuationDenied).
//   - Keys rotate without downtime: previous keys keep verifying (and
//     unsealing) until Prune removes them. JWKS exports public signing keys
//     only.
//
// # Key rotation across replicas
//
// Every replica loads the key file at start, so during a rolling restart
// replicas with the old file and replicas with the new one serve side by
// side, and each must accept what the other mints. Rotation therefore
// happens in three stages, each rolled out to every replica before the
// next one starts:
//
//  1. Publish (capgate keys generate --rotate): fresh signing and sealing
//     keys join the file as published keys. They verify tokens and open
//     resource maps, and the JWKS lists the signing key, but nothing is
//     signed with them. Old and new replicas both still sign with the
//     active key, which both know.
//  2. Activate (capgate keys activate KID): the published keys become
//     active, and the keys active until then become previous keys with
//     their retirement time recorded in the file. A replica with the new
//     file signs with the new key, which replicas still on the stage-1 file
//     already accept; they sign with the old key, which the new file still
//     holds.
//  3. Prune (capgate keys prune --older-than TTL), once every token the
//     retired keys signed has expired: remove them. PruneKey refuses the
//     active key, a published key, and a key retired less than the given
//     time ago; pass the longest capability lifetime (the gateway's
//     capabilities.max_ttl) so that no live token loses its key.
//
// Rotate does stages 1 and 2 at once and suits a single replica, or a
// restart of every replica together. Publish and Activate each change
// only what the next stage needs, so two replicas one stage apart always
// accept each other's tokens. A key file with published keys is written
// as version 2; a gateway that predates staged rotation refuses it rather
// than ignoring the published keys. Files without published keys keep
// the original version-1 format.
//
// # Not guaranteed here
//
// Revocation is the caller's job, on every use, including cache hits: check
// every id of Claims.RevocationIDs. Key revocation and replay state on those
// ids, never on the token string: base64url tolerates a few spellings of the
// same signature, and ECDSA signatures are malleable, so distinct strings
// can carry the same signed claims. Whether the caller is the holder, and
// whether the operation and handle of a request are in the capability, are
// checked by the gateway with Claims.Holder, HasOperation and HasHandle.
//
// The clock is always injected (VerifierConfig.Now, AttenuateOptions.Now).
// Rotate sealing keys regularly: AES-GCM with random nonces should not seal
// more than about 2^32 maps under one key.
package captoken
