// Package sep defines the wire shapes of A2A's capability-negotiation
// extension as capgate speaks it: the params of a2a/capabilities/request,
// attenuate and revoke and of a2a/skill/invoke, the issued capability, and
// the results, with the pending answer of a request that waits for human
// approval and the gateway's own a2a/capabilities/approval/status method
// that follows it; and the params and result of a2a/resources/resolve,
// the hook an agent serves so that the gateway can resolve resource
// queries. The gateway's A2A front decodes requests into these types and
// answers with them; the Go client (gateway/client) sends and decodes the
// very same types, so the two sides cannot drift apart.
//
// The error codes that go with these methods (-32040 … -32049) and their
// stable reason words live in gateway/jsonrpc beside the JSON-RPC codes,
// because every refusal, extension or not, is built there.
package sep
