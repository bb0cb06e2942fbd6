// Package quickstart is the quickstart world: its config, policy and
// policy tests (embedded, so that `capgate demo` runs on a fresh machine
// with no files to find), its example agents (documents, summarizer,
// notes, the lab A2E host and the files MCP server, in the subpackages),
// and the code that starts the whole world in one process: the agents on
// loopback ports and the gateway in front of them with the embedded
// config, policy and dev keys. Walkthrough narrates the story `capgate demo` tells and fails at the first step that
// does not behave, so the demo doubles as an end-to-end test.
//
// It is a demo and a test fixture, not part of the gateway: nothing under
// gateway/ imports it except tests. `capgate demo`, the README tutorial
// and the end-to-end tests all use this one world, so its names and values
// stay stable: agents documents, summarizer and notes, the A2E host lab,
// the MCP server files, principals alice, bob, carol and agent:summarizer
// with their dev keys, and the reports and hr collections.
package quickstart
