// Package jsonrpc is capgate's JSON-RPC 2.0 codec for the A2A front
// (POST /a2a/{agent}).
//
// It exists because the gateway authorises what it decodes and then forwards
// the caller's bytes upstream unchanged. If the gateway's reading of a body
// and the upstream agent's reading of the same bytes could differ, a caller
// could get one value authorised and have another one executed. This package
// closes that gap by accepting only bodies that every conforming JSON parser
// reads the same way.
//
// # Guarantees
//
// [Decode] checks the whole body in one pass before it decodes anything, and
// fails the whole body when it:
//   - is not well-formed JSON (RFC 8259), or has anything but whitespace after
//     the value;
//   - contains invalid UTF-8, or a \u escape that is a lone UTF-16 surrogate
//     (parsers disagree on those: some keep them, encoding/json replaces them);
//   - nests arrays and objects deeper than [Limits.MaxDepth];
//   - repeats a member name in any object at any depth, comparing names after
//     unescaping ("a\u0062" and "ab" are the same name);
//   - has two member names in one object that differ only in case, under the
//     same Unicode simple folding encoding/json uses to match struct fields
//     ("capabilityId" and "CapabilityID", or "sk" and "\u017Fk");
//   - is larger than [Limits.MaxBodyBytes], or is a batch that is empty or
//     has more than [Limits.MaxBatch] elements.
//
// Each element is then decoded on its own. An element that is not a valid
// JSON-RPC 2.0 request object gets [Request.Err] set, while the other
// elements of a batch still decode, so each invalid element can get its own
// error response as the specification asks. An invalid element never carries
// a Method or Params, so code that forgets to look at Err still cannot
// authorise it as anything.
//
// [Request.Raw] is the exact bytes of each element, a sub-slice of the body:
// what was checked is what is forwarded.
//
// [Strict] applies the same whole-body checks to JSON the gateway reads
// without decoding it as a request, such as an agent's answers, and can
// also refuse a member spelled otherwise than a name its reader reads
// ([Names]).
//
// [WalkObject], [WalkArray] and [WalkStrings] are the one walk over JSON
// text in capgate: they find the members, elements and string literals of
// a text this package checked, as every conforming parser finds them,
// without decoding or allocating. Code that reads part of a checked text
// without decoding it walks it with these, so that it reads what the
// checks were about; it never scans the bytes with a loop of its own.
// [FirstMember] and [WalkObjectAt] let a reader of one member of a large
// checked text stop there: it pays for the members written before it and
// for the member's own members, never for skipping the rest. [Strict]'s
// CheckLoose also says, in the check's pass, whether json.Compact would
// change the text.
//
// [UnmarshalParams] decodes params into a struct strictly: unknown members are
// rejected, and member names must match the struct's JSON names exactly,
// never case-insensitively as encoding/json would otherwise allow.
//
// Errors on the wire are [*Error] values. [ErrorFor] maps this package's
// sentinel errors to them, each with a stable data.reason word, and the
// capability codes -32040..-32049 (README, "Capability errors") are defined here so every
// front speaks the same codes.
//
// The package does no I/O beyond [ReadBody] and the response writers, keeps
// no package-level mutable state, and is safe for concurrent use.
package jsonrpc
