// Package answer is the answer pipeline: everything an upstream sends
// back for a call the gateway forwarded passes through it before the
// caller sees a byte of it.
//
// A front builds one Pipeline with its processors, in order, and installs
// Pipeline.Modify as its reverse proxy's response hook. For each answer:
//
//   - a unary answer is read whole (within the call's limit: Call.MaxBytes,
//     else Options.MaxBytes, 16 MiB by default; a longer one is replaced
//     by -32603 answer_too_large naming the limit); each
//     response object in it (the answer, or each element of an array) is
//     checked, then run through the processors;
//   - a text/event-stream is read event by event, and each event's data
//     is checked and processed as it arrives, so a stream is never held
//     whole and a refusal (say, the capability was revoked at the third
//     event) ends it there. Only the fields a client acts on pass, in a
//     normal form, and a LineFilter may rewrite them.
//
// # The check before the processors
//
// Each response object must pass the checks the codec applies to a
// caller's body (well-formed, valid UTF-8, no member name repeated or
// differing only in case at any depth), and where the processors read
// members by exact spelling (a response's jsonrpc, id, result and error)
// it must spell them so. An answer two clients could read differently
// could carry a task, an id or a handle past the processors unseen; it is
// replaced by -32603 malformed_answer for the call's id. Whatever a
// processor changes passes the same check before the next one sees it,
// but for an id mapping that changed string values alone: it is as
// well-formed as what the check accepted, with the same names.
//
// # Processors
//
// A Processor takes one response object and the front's value for the
// call, and returns it changed, unchanged, or refused. The pipeline owns
// no protocol's knowledge; the processors hold it. This package provides
// the one every capability-scoped call needs, MapIDs (with Lines for a
// stream's other fields): the capability's real ids become the caller's
// handles in every string of the answer, member names included, however
// escaped, and other known ids are redacted or refuse the answer, by the
// decision core's map (package enforce). The A2A front adds task
// ownership and generation translation.
//
// # One read of the structure, pooled buffers
//
// The answer check is the one pass that reads an answer's structure. As
// it checks a response object it records its layout (jsonrpc.Layout:
// where every string literal is, whether it is escaped or a name, and
// where every object and array ends), and the processors that come after
// it read that instead of finding those places again (LayoutOf): task
// ownership skips the result's content to the members it reads, and the
// id mapping visits the recorded literals. The id search is one search of
// the whole answer (enforce.Text), at memchr speed for the few ids of a
// capability, and a literal is rewritten only when an id starts in it.
// Nothing walks an answer again after a processor that changed nothing,
// nor after an id mapping that renamed no member.
//
// A unary answer's buffers (the one it is read into, the one the mapping
// writes) come from pools, so a large answer costs no allocation in the
// steady state (arena.go). Once the answer is processed, the layout and
// every buffer but the one the caller's answer is in go back; that one
// goes back when the proxy closes the answer after writing it. A layout
// never holds more than its text's size, and a buffer is at most a
// quarter larger than asked, so an answer in flight holds about its own
// size, and 1.25 times that while a mapped copy is written. What a
// processor is given it reads during its call and never keeps.
//
// # Not built
//
//   - The output is written into a buffer of its own, not into the one
//     the answer was read into, and a stream event's data is checked and
//     walked as before (events are small, and the stream holds one at a
//     time).
//   - Translation between A2A generations decodes the response it
//     translates; it runs only on calls a caller makes to an agent of
//     the other generation.
package answer
