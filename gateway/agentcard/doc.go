// Package agentcard fetches an upstream agent's card and serves it as the
// gateway's callers should see it.
//
// The card a caller sees must describe the gateway, not the agent behind it:
// its url points at the gateway, its capabilityGrants are the ones the
// gateway's config declares (the gateway enforces them, so it is the
// authority on them), and it declares the capability-negotiation extension.
// Cards are fetched with SSRF care: only from the configured upstream
// origin, with size and time limits, and never following a redirect.
package agentcard
