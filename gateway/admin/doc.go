// Package admin is the admin API that security teams use, served on its
// own listener, never on the public one: revoke a capability (and with it
// every descendant), a revocation id or everything a principal holds;
// list a principal's capabilities with their revocation state; reload and
// read the policy; freeze an agent or a principal. Every caller authenticates like any other and must be
// an admin principal or in an admin group; every revocation is an audit
// event naming the operator, and every call refused with 401 or 403 is an
// admin.refused event (method, path, status, client address, and the
// caller when it authenticated). Those events are bounded per client
// address (Deps.Refusals, package audit/throttle: 10 a minute by
// default, and 1000 for all addresses together): past that a flood is
// counted, and written as one
// admin.refused event with decision "suppressed" and the count when the
// window ends. The metric capgate_refused_calls_total counts every
// refused call.
//
// The approval routes are the exception: the policy, not admin_access,
// says who decides a request waiting for approval. Any authenticated
// caller may use them; the approval store admits only the approvers that
// the request's policy rules name, never the requester.
//
//	GET  /admin/approvals[?status=pending&principal=ID&limit=N]
//	GET  /admin/approvals/{id}
//	POST /admin/approvals/{id}/approve   {"reason": "..."}
//	POST /admin/approvals/{id}/deny      {"reason": "..."}
//
// Admins list every request; anyone else lists the requests they may
// decide. Answers never carry real resource ids, only display names. The
// list answers {"approvals", "more", "forged"}: the newest N (default 100,
// at most 500) requests the caller may see and the filter keeps (what the
// caller may see is filtered before the limit, so newer requests it may
// not see never push one out), "more" when further ones match, and
// "forged", which names, to admins only,
// the stored requests that fail their MAC (tampered with, or written
// without the key), whatever the filter, empty when none. Such a request
// is never decided or redeemed; it is named, and logged at warn, never
// hidden, and the answer stays 200. A store that cannot be reached is a
// 503.
//
//	GET  /admin/capabilities?principal=ID
//
// answers {"principal", "capabilities", "unreadable", "missing"}: the live
// capabilities whose principal or holder is ID, each with its revocation
// state ("live", "revoked", "invalid", or "unknown" when the revocation
// store cannot say), and the ids of live capabilities whose index records
// could not be read (corrupt, written by an incompatible version,
// tampered with, or deleted or evicted before the capability expires),
// empty when none; "missing" repeats those whose record is gone (deleted
// or evicted), the rest being present but undecodable. Such a capability
// may still be live, so it is named,
// and logged at warn, never hidden; the answer stays 200 with every
// readable record. An index that cannot be reached is a 503, even when
// its error also names unreadable records.
//
// The emergency stop (package freeze):
//
//	POST /admin/freeze     {"kind": "agent"|"principal", "name": ..., "reason": ...}
//	POST /admin/unfreeze   {"kind": ..., "name": ..., "reason": ...}
//	GET  /admin/frozen
//
// A freeze holds on every replica once it answers 200: nothing is issued
// to or for what is frozen (-32047 grant_denied, data.detail "frozen")
// and none of its capabilities is used (-32043 capability_revoked,
// data.detail "frozen"); a stream open when it comes ends at its next
// event with that refusal (package freeze says how). Every live capability the index lists for the
// agent, or held by or for the principal, is revoked by id with its
// descendants, and a principal's also by a cutoff at the freeze (so
// capabilities issued for it in the same second, the tokens' precision,
// stay revoked after an unfreeze). An agent freeze also freezes the
// principal the agent calls out as (Config.Principals), answered under
// "asPrincipal", so what was delegated to the agent dies with it; the
// agent's unfreeze lifts that one too, never a freeze of the principal
// made on its own, before or after (it is left as it is). The answer is {"entry", "revoked",
// "unreadable", "truncated"}: records the index could not read are named
// (refused while frozen, not revoked), and "truncated" says the index
// listed its maximum (capindex.MaxList) so older ones may be left; freeze
// again to revoke them. A reason is required (400 without); an unfreeze
// of what is not frozen is 404; a freeze that holds but whose storing or
// revoking failed in part is 503 with what was done. Each is one
// admin.freeze or admin.unfreeze audit event with the operator and the
// reason. Capabilities revoked by a freeze stay revoked after unfreeze.
package admin
