// Package files is the quickstart "files" MCP server: a Model Context
// Protocol server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), the way a third party would
// write one, served over Streamable HTTP. It knows nothing of
// capabilities: it trusts whoever reaches it and acts on the storage ids
// it is given. capgate fronts it at /mcp/files and is what keeps those
// ids from callers: a caller names a file by a handle of its capability,
// and the gateway rewrites the handle to the storage id on the way in and
// back on the way out.
//
// # What it serves
//
// One Streamable HTTP endpoint (any path), stateless, so that it speaks
// both revisions the gateway does (2026-07-28, and 2025-11-25 with
// initialize), answering each POST with one JSON body rather than an
// event stream (so that a curl walk reads plainly), with three tools over
// a small in-memory corpus:
//
//   - read_file {path}: the file's text, as text content
//     ("ID: TEXT") and as structured content {path, content}.
//   - search_files {query}: the storage ids of the files whose text
//     contains query (case-insensitive), as text and as {matches}.
//   - write_file {path, content}: replaces (or creates) a file.
//
// A path is a storage id such as files/finance/q1-2026.md; Corpus lists
// the files every new Server starts with. Calls records every tool call
// that reached the server, so that a demo or a test can show that a
// refused call never did.
package files
