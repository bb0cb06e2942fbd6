// Package loadtest measures what capgate costs beyond the proxy hop itself.
//
// A gateway that every agent call passes through must cost almost nothing
// more than a plain reverse proxy. This package starts, in one process and
// on loopback listeners only:
//
//   - Upstream: a minimal, allocation-light stand-in for the quickstart
//     documents agent (its card, a2a/resources/resolve, and a fixed result
//     for every other JSON-RPC call);
//   - the baseline: a plain, tuned httputil.ReverseProxy (Rewrite, the
//     gateway's own proxy.NewTransport, a buffer pool, FlushInterval 0) in
//     front of the upstream;
//   - capgate, built with gateway.FromConfig from the quickstart config and
//     policy, driven on the full a2a/skill/invoke path (authenticate,
//     verify the capability, check revocation, holder, operation and
//     handle, rewrite, proxy), once per revocation-store variant, and on
//     the MCP front's full tools/call path (read_file at /mcp/files, the
//     upstream standing for the files MCP server, whose tools/call it
//     answers with a text content), on the first variant.
//
// Drive runs a closed-loop load of C keep-alive connections against one
// target for a fixed duration after a discarded warm-up, and reports req/s,
// p50/p99/p99.9 latency and allocations per request. Run orchestrates a
// whole comparison (every target, variant and connection count, plus
// issuance and attenuation rates) and returns a Report whose ratios against
// the baseline come from the same run.
//
// A World sizes what is measured: the upstream's answer to an invocation
// (AnswerKiB of text naming IDsPerKiB of the capability's ids per KiB)
// and the documents agent's catalog (Catalog resources in the config).
// RunScale runs the fixed scale matrix (ScaleMatrix), one lab per World,
// every case in the same interleaved rounds, and returns each row's
// ratio to the baseline with the same answer (issuance: to issuance from
// a catalog of 2) and the checks of its targets.
//
// What it guarantees:
//   - loopback only: every listener binds 127.0.0.1, and a throwaway
//     redis-server it starts binds 127.0.0.1 with persistence off;
//   - bounded: every run has a deadline (warm-up + duration + grace), every
//     request carries it, and the plan's total time is known before the
//     first request;
//   - honest: any non-200 answer or JSON-RPC error counts as an error and is
//     reported per row; allocations are counted for the whole process
//     (load generator and upstream included) and reported for every target,
//     so the difference between rows is what the proxy or gateway adds.
//
// capgate is built with gateway.FromConfig as `capgate serve` builds it
// from the quickstart config (policy file, dev keys, documents agent),
// except that its logs and audit trail are written nowhere
// (BuildOptions.AuditWriter is nil): audit events are still produced.
//
// Variants: "memory" is the embedded default; "redis" gives the gateway a
// revocation.Redis store directly (one Redis round trip per check);
// "synced" gives it revocation.Synced on top of that store (checks answered
// from the pub/sub-synced local set). In every variant the capability index
// stays in memory, so the variants differ only in the revocation store.
package loadtest
