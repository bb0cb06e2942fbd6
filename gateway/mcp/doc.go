// Package mcp holds what capgate knows of the Model Context Protocol's
// wire, for the MCP front (package mcpfront) and the config that
// declares MCP servers: the method names the front decides on, the
// Streamable HTTP headers it reads or sets, the protocol revisions it
// speaks, the _meta key under which a caller presents a capability, and
// Pointer, the JSON pointer (RFC 6901) that names a tool argument
// carrying a resource.
//
// The names are those of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk v1.8.0), which implements the
// revisions 2026-07-28 and 2025-11-25 and accepts the three before them.
// The package does no I/O and keeps no state.
package mcp
