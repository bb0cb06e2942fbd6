// Package siem renders capgate's audit events for security information
// and event management systems: OCSF (the Open Cybersecurity Schema
// Framework, version 1.8.0) as one JSON object per line, and ArcSight CEF
// as one line each. The audit trail itself, and its hash chain, stay in
// capgate's canonical form (package audit); these are renderings of it.
//
// # Finding a record in the trail
//
// Every rendered record says where in the trail it comes from: its chain
// (the replica's), its position in that chain and the chain hash of the
// event. OCSF carries them as metadata.log_name, metadata.sequence and
// metadata.uid ("<chain>:<seq>") and keeps the whole canonical event under
// unmapped.capgate, so an OCSF record verifies on its own: the event
// under unmapped.capgate hashes to its hash member exactly as the trail's
// line does (audit.Verify accepts a file of them). CEF carries them as
// cs1 (chain), cn1 (seq) and cs2 (hash); look the line up in the trail
// with the chain and seq and compare the hash.
//
// # OCSF mapping
//
//   - a2e.handshake is Authentication (class 3002): a logon (activity 1)
//     of the principal to the A2E host (service), success or failure;
//   - every other event is API Activity (class 6003): the event name is
//     api.operation, the agent or host is api.service, the acting
//     principal (caller, admin, approver, principal, in that order) is
//     actor.user, the capability is a resource, and the activity is Create
//     for issuance, attenuation, delegation and approval requests, Delete
//     for revocations, Update for decisions on approvals and freezes, and
//     Other (99, named) for invocations, refusals and checkpoints.
//
// A decision that refused (any decision word but issued, allowed,
// attenuated, delegated, revoked, approved, redeemed, frozen, unfrozen,
// requested; or ok false) is status Failure with severity Medium and the
// word as status_detail; the rest are Success and Informational. capgate's
// fields that OCSF has no place for are in unmapped.capgate with the
// rest of the event.
//
// # CEF
//
// CEF:0|capgate|capgate|<version>|<event>|<name>|<severity>|<extensions>:
// in the header | and \ are escaped with \, in extension values = and \
// are, and newlines become \n (\r for carriage returns). The signature id
// is the event name; severity is 3 for a success, 6 for a refusal.
package siem
