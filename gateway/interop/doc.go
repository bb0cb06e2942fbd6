// Package interop holds capgate's interoperability tests: the official A2A
// and MCP SDKs, with their default settings, used as real clients and real agents
// through a real gateway.
//
// The gateway is the quickstart world's (gateway.FromConfig on the
// quickstart config) with four more agents: a stock a2a-go agent that
// serves A2A v0.3 only, a stock a2a-go/v2 agent (a2asrv with an executor
// that echoes, or holds a task working until it is canceled) that serves
// v1.0 only, and two built on @a2a-js/sdk, one that serves v1.0 only and
// one that serves v1.0 and v0.3. The a2a-go/v2 agent also stands in for
// the quickstart's notes agent, to see each capability refusal from a
// v1.0 agent's side. The quickstart's documents
// agent (built on a2a-go, serving the capability extension) declares 0.1
// to 1.0; behind a face that rewrites its card it also stands for a
// v0.3-only and a v1.0-only agent that serves the extension. Clients are
// the @a2a-js/sdk client (driven through the scripts in js/, run with
// node), the a2a-go client (A2A v0.3) and the a2a-go/v2 client (A2A v1.0,
// whose default card resolver needs the parser in gov1_test.go). The
// a2a-go client reaches the v1.0-only a2a-go/v2 agent through the
// gateway's translation, as the a2a-go/v2 client reaches the v0.3-only
// a2a-go agent.
//
// SDK versions are pinned: github.com/a2aproject/a2a-go v0.3.15 and
// github.com/a2aproject/a2a-go/v2 v2.4.0 by go.mod, @a2a-js/sdk 1.3.0 by
// js/package-lock.json.
//
// MCP: the official Go SDK client (github.com/modelcontextprotocol/go-sdk,
// in both revisions the front speaks) and the official TypeScript SDK
// client (@modelcontextprotocol/sdk's Client with its
// StreamableHTTPClientTransport, driven through js/mcpclient.mjs) reach
// the quickstart's files server, built on the Go SDK, through
// /mcp/files: initialize, tools/list, tools/call, and the refusals
// (-32040, -32044, -32045) surfaced to the application with code and
// data.reason. Their capabilities are requested at /mcp/files, as any
// caller's are.
//
// The JavaScript dependencies are pinned by js/package-lock.json and are
// installed with
//
//	npm ci --prefix gateway/interop/js
//
// The tests never download anything: without js/node_modules they skip,
// or fail when the CI environment variable is set.
package interop
