// Package a2e is capgate's codec for the A2E wire: one JSON object per
// NDJSON line (agent → host, over POST /send) or per SSE data: event
// (host → agent, over GET /stream).
//
// # Why it exists
//
// The A2E front authorises what it decodes and forwards the caller's bytes
// to the host unchanged. If the gateway's reading of a line and the host's
// reading of the same bytes could differ, a caller could have one message
// type authorised and another executed. This package therefore accepts
// only lines every conforming JSON parser reads the same way, and reads the
// members that drive decisions by their exact names.
//
// # Guarantees
//
// [DecodeLine]:
//   - refuses a line longer than its limit before parsing it ([ErrTooLarge]);
//   - refuses anything that is not one well-formed JSON object, holds invalid
//     UTF-8 or lone surrogate escapes, nests deeper than [MaxDepth], or
//     repeats a member name in any object at any depth, including names that
//     differ only in case ("type" and "Type"), using the checker of
//     gateway/jsonrpc ([ErrParse]);
//   - reads the envelope (type, id, ts, a2e or version) and the typed
//     members by exact name: "Type" is not "type"; a missing type or id, a
//     type outside the known messages and capability namespaces, a member
//     of the wrong JSON type, or a missing required member is
//     [ErrInvalidMessage];
//   - keeps the line ([Message.Raw]) and every top-level member
//     ([Message.Members]), known or not, so a message can be forwarded
//     byte for byte or rewritten without losing what the gateway does not
//     understand.
//
// The version travels as "a2e" (the specification) or "version" (some
// SDKs); both are accepted, a message carrying both with different values
// is refused, and [Envelope.VersionKey] remembers which one the peer used
// so that replies are written with the same key.
//
// [CapabilityFor] maps a message type to the A2E capability that must have
// been negotiated before the message may pass. handshake/*,
// ping, pong, shutdown, error and invoke/event always pass.
//
// The package does no I/O and keeps no state.
package a2e
