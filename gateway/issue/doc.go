// Package issue is capability issuance as every front answers it: the
// protocol-neutral part of a2a/capabilities/request (the intersection of
// grant ∩ request ∩ policy, opaque handles for resources, approval when
// the policy asks for it), a2a/capabilities/approval/status,
// attenuation and revocation. A front decodes its own wire into the
// SEP's params (package sep), names the target the call is addressed to
// (an A2A agent, an MCP server), and puts the result or the refusal on
// its own wire; the Issuer does the rest, against the same stores, so a
// capability issued at one front is the same kind of thing as one issued
// at another and can be attenuated and delegated across them.
//
// What the Issuer needs of a target is its name (the capabilities'
// audience and the policy's target), its grants, and how its resources
// are resolved (Target). Every refusal is a *jsonrpc.Error with
// capgate's stable code and data.reason; every decision is audited
// through the front's audit function, with the events named here.
package issue
