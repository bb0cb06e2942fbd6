// Package approval holds capability requests that the policy lets through
// only once a human approves them.
//
// # The flow
//
// When an allow rule of the policy asks for approval, the A2A front does
// not issue. It records a Request holding exactly what would have been
// issued (grants, operations, resources with their display names, each
// grant's lifetime and delegation depth, the principal, the purpose and
// the policy revision) and answers the caller with the request's id. An
// approver then approves or denies it, with a reason, through the admin
// API or the console. The caller asks again with the id and receives
// exactly what was approved, or nothing when the policy in force at that
// time no longer allows all of it (fewer operations, a shorter lifetime,
// a lower depth, a resource or grant gone), or the denial with the
// approver's reason.
//
// # The action hash
//
// Create stores with the request the hash of exactly what it issues
// (Request.ActionHash, "sha256:" and 64 hex digits): the SHA-256 of the
// canonical JSON of Action (ActionVersion; principal, agent, purpose,
// policy revision; per grant its name, rule, operations, resources by
// real id and display name, lifetime in nanoseconds, depth and
// attenuability; grants, operations and resources sorted), pinned by
// testdata/action.golden. The admin API, the console and every audit
// event (action_hash) show it next to what it covers. Approving,
// denying and redeeming refuse a request whose content no longer
// matches its hash (ErrActionChanged, which wraps ErrUnavailable). The
// console's decision forms carry the hash they showed, and the admin
// API's take it as "actionHash": a decision on another hash than the
// request holds is refused (Request.Seen, ErrOtherAction). A
// request stored by an earlier gateway, without a hash, gets one when
// it is decided, and one approved without a hash is not redeemed.
//
// # The contract of Store
//
// Store is what the front, the admin API and the console use. *Desk is its
// implementation; it enforces every rule, so no caller has to:
//
//   - Create records a pending request, gives it its id ("apr_" and 128
//     random bits) and its deadline (now + Request.Wait), emits the
//     approval.requested audit event and notifies approvers (if a Notifier
//     is set). The caller fills everything else. A principal has at most
//     MaxPending requests waiting (config max_pending_per_principal,
//     default 20; a *PendingLimitError past it): asking again exactly
//     what a waiting request asks returns that request, not a new one.
//     Replicas count on the shared store, so concurrent creates on n
//     replicas can exceed the bound by at most n-1.
//   - Get and List read; a pending or approved request past its deadline
//     reads as StatusExpired. List returns newest first, the newest
//     Filter.Limit of those its filter keeps (Filter.Keep included): a
//     caller showing a subset filters before the limit, not after.
//   - Approve and Deny need a pending, unexpired request and an approver
//     that every grant's Approvers admit (ErrNotApprover) and that is not
//     the requesting principal (ErrSelfApproval). A request is decided
//     once: deciding again is ErrNotPending. Approving restarts the clock,
//     so the caller has Wait again to redeem.
//   - Redeem is for the requesting principal only (anyone else gets
//     ErrNotFound). It returns the approved request and marks it redeemed,
//     atomically, so an approval is used at most once even across
//     replicas, and even if its record is rolled back (below); a second
//     Redeem is ErrRedeemed. A pending request is
//     ErrPending, a denied one ErrDenied (the returned Request carries the
//     reason), an expired one ErrExpired.
//   - A Notifier (the Webhook) tells approvers of each new request, in
//     the format the config names: generic (the Notification, signed),
//     slack (an incoming-webhook message) or teams (an Adaptive Card in
//     a message), the chat ones with display names only, the requester's
//     text as plain text, and a link to the request on the console.
//   - Every transition is an audit event (approval.requested, .approved,
//     .denied, .expired, .redeemed) naming the request, the principal, the
//     approver, the reason, the purpose and the action hash.
//
// Request.Grants[].Resources hold real resource ids, which the gateway
// needs to mint. Nothing shown to a human may print them: use
// Request.Public, which keeps only display names.
//
// # Storage
//
// Memory serves one replica (the quickstart); Redis lets any replica
// decide or redeem a request created on any other. On a shared store,
// wrap the backend in Sealed: every record then carries a MAC (the
// recordseal package's, which the A2E session records share), so that
// whoever can write the store still cannot approve a request or change
// what it holds (a record that fails its MAC is ErrForged, never used).
// List does not hide such a record: it returns every request that
// verifies with a *ForgedError naming the ids of those that do not (see
// Partial), which the admin API and the console show. A Redis record
// that does not decode at all, or holds another id than its key, is
// ErrUnavailable, and fails the whole listing; Memory holds no encoded
// records. Both keep a decided or expired request for Retention after its
// deadline, so that the console and the audit can still show it.
//
// # What someone who can write the Redis can still do
//
// The MAC alone does not stop a replay: an earlier sealed record of the
// same request (its approved state, saved before it was redeemed) still
// verifies. So Redeem first records the request's id in a Ledger, one
// way, and refuses an id already there (ErrRedeemed, audited as
// approval.replayed); only then does it mark the record redeemed. The
// gateway's ledger is its revocation store: the id is revoked, which
// every Synced replica holds in memory until the last moment any copy of
// the record could be redeemed (CreatedAt + 2×Wait), and writes back to
// Redis if Redis loses it. Writing a saved record back, even together
// with deleting the ledger's key, therefore redeems nothing while a
// replica that saw the redemption runs. A Redis writer can still:
//
//   - replay a redemption if it deletes the ledger key and no running
//     replica holds the id (every replica restarted since, or replicas
//     without a Synced revocation store), within the request's 2×Wait;
//   - bring back an earlier pending state: the request waits again, a
//     denial included, so another approver may approve what one denied
//     (a request redeemed before stays unredeemable);
//   - deny service: delete or garble records (ErrNotFound,
//     ErrUnavailable), or mark ids used;
//   - read every record: the MAC authenticates, it does not encrypt, so
//     principals, purposes and real resource ids are readable.
//
// It cannot approve a request, change what one holds, or extend its
// deadline. A ledger that cannot answer refuses the redemption
// (ErrUnavailable); the approval stays usable once it answers again.
package approval
