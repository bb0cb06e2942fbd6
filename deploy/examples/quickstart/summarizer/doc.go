// Package summarizer is the quickstart "summarizer" agent: a real A2A
// JSON-RPC server that capgate fronts at /a2a/summarizer. It is the
// delegatee in the quickstart world (README, "The quickstart world"): a caller delegates an
// attenuated capability to it, and it uses that capability, and nothing
// else, to read documents through the gateway.
//
// # Why it exists
//
// capgate's delegation path needs a capability-aware sub-agent to prove
// the end-to-end story: the gateway mints a child capability bound to
// agent:summarizer, puts it in the delegated message, and the summarizer
// calls a2a/skill/invoke retrieve_document through the gateway, as itself,
// for each resource handle it was given. Revoking the parent then visibly
// breaks the child. A capability for the files MCP server (grant
// files:…) is used the same way across protocols: handed to it over A2A,
// it reads each file with read_file through the gateway's MCP front
// (Options.FilesURL), with the official MCP Go SDK client, presenting the
// child in params._meta.
//
// # What it guarantees
//
//   - It reads delegated capabilities only from the top level of the send
//     params ("capabilities": a list of capability objects in the SEP
//     issuance shape), accepted on every generation's send method.
//   - Capability tokens and its own credential are sent only to the
//     configured gateway URLs, never to an address found in a message, never
//     after a redirect (it calls the gateway with the capgate client,
//     gateway/client, and the MCP SDK client through a transport that
//     refuses any other address), and are never logged or echoed in an
//     answer.
//   - A refused invocation is a value: the answer names the JSON-RPC
//     error reason (e.g. "capability_revoked") for that document and the
//     task still completes.
//   - It keeps no package-level state; the clock, logger, HTTP client and
//     recorder come from [Options].
//
// It reuses the documents package's JSON-RPC front and request recorder.
package summarizer
