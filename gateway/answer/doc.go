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
// # Not built yet
//
//   - One strict walk feeding every processor. The walks that repeated
//     what another already knew are gone: the answer check also says
//     whether the answer holds loose whitespace (so the output is not
//     walked again to decide on compacting it), an id mapping that
//     renames no member is not checked again (MapIDs vouches for it to
//     the chain), and task ownership walks the result once. A unary
//     answer is still walked by the answer check, by task ownership, by
//     the id search and, when it names an id, by the id mapping; the
//     mapping writes a new buffer instead of writing the output as it
//     goes. A 256 KiB answer costs about 2.2 times the CPU a plain reverse
//     proxy spends on it, one naming an id every 80 bytes about 3.7
//     times (BENCHMARKS.md, the ninth round).
//   - Reuse of the mapped output's buffer: each answer that names an id
//     allocates its output (1.3 times the answer), and the id search
//     still runs twice on it (once over the answer, once per literal
//     mapped).
package answer
