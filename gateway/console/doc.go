// Package console is capgate's operator console, served on the admin
// listener under /console/ (a browser opening the listener's root is
// redirected there): server-rendered HTML (html/template) with its
// one stylesheet embedded in the binary, no script, no CDN and no build
// step.
//
// # Pages
//
//   - Approvals: each waiting request, who asks, the purpose, exactly
//     what would be issued (resources by display name, lifetimes for
//     people: "15 min"), the grant that asked for approval marked (and
//     by whom it must be approved) apart from those riding along, the
//     policy rule and revision, and the action hash that binds approving
//     to exactly that (see approval's package doc); approve or deny with
//     a reason. The buttons are shown only to an operator who may decide
//     the request; others read why not (their own request, or not named
//     by its rule), and the store refuses them all the same. Decisions
//     go to the approval store as the signed-in principal (id and
//     groups), which refuses anyone the request's rule does not name as
//     an approver, and the requester.
//     The page shows the newest 200 requests the operator may see,
//     filtered before that limit, and says so when more wait. Below
//     them, the newest 50 decided or expired requests the operator may
//     see (kept a day past their deadline): approved, denied, expired or
//     redeemed, by whom, when, why and what they asked. Admins see the
//     ids of stored requests that fail their MAC (tampered
//     with, or written without the gateway's key) named in a warning,
//     whatever status they claim; such a request is never decided or
//     redeemed, and never hidden.
//   - Live capabilities: filtered by principal, agent or grant; each root
//     drawn with its delegation tree as nested boxes that wrap their text
//     (holder, capability id, purpose, operations, resources by display
//     name, depth, expiry), capabilities on MCP servers (config
//     mcp_servers) marked MCP. Only live ones are shown and counted:
//     revoked and expired ones are left out, with their number said. A
//     live capability whose index record cannot be read (corrupt, from an
//     incompatible version, tampered with, deleted or evicted before the
//     capability expires) is named in a warning above the trees, never
//     hidden. A capability's page (/console/capability?id=) shows it in
//     full; while it is live it offers Revoke, first saying how many live
//     descendants die with it, then revokes through the admin API's own
//     path. A revoked one says so and offers nothing.
//   - Policy: the revision in force, the last reload and its error, every
//     rule as the loaded policy holds it (whom it matches, what it
//     applies to, operations, resources, lifetime, delegation, approvers,
//     conditions), and an explain form taking what `capgate policy
//     explain` takes (principal with issuer, groups and claims; agent,
//     grants, operations, collection, filters, purpose, expiry; or an A2E
//     host and capabilities; a decision time). The decision comes back
//     highlighted (allowed, allowed after approval, denied) with what
//     would be issued and why, and the rule-by-rule trace.
//   - Shadow policy: with policy.shadow_file, the enforced and candidate
//     revisions, the newest policy.shadow_disagreement events of the
//     audit file (the last MiB of it) and the diff between the two
//     policies (policy/impact); without one, how to configure it.
//   - Emergency stop: what is frozen, by whom, since when and why, with
//     a form that freezes an agent or a principal (a reason required) and
//     one per entry that lifts it, both through the admin API's path
//     (package freeze; see the admin API's POST /admin/freeze).
//   - Audit: the events of the audit file, newest first, 50 a page, with
//     filters (principal, holder, admin or caller; agent, MCP server or
//     A2E host; capability id, at the top of an event or in an
//     admin.revoke's request and result; event kind, exact or by prefix
//     such as "capability"; a UTC time range). Capability ids link to
//     their page; an admin.revoke row says what was revoked. The chain is
//     verified on every view: "N events, chain intact", or the position
//     where it first breaks. An OCSF trail (audit.format: ocsf) is read
//     through the canonical event each record carries under
//     unmapped.capgate (audit.Unwrap, as audit.Verify reads it): a record
//     whose mapped fields are not its event's is not shown, and breaks
//     the chain. A CEF trail keeps no whole events: the page says it is
//     CEF and that it can neither show nor verify it, never that it is
//     broken. Without audit.file the page says that it has nothing to
//     read (`capgate demo --serve` always keeps a file).
//
// Every page is shot in headless Chromium at 1280 and 800 px wide into
// testdata/screenshots (go test -run TestScreenshots -update), and no page
// may be wider than the window.
//
// # Sign-in and protection
//
// Operators sign in with OIDC (authorization code with PKCE, through
// golang.org/x/oauth2 and go-oidc) or, only when dev keys are configured,
// with a dev key. The ID token must verify for the console's client with
// the sign-in's nonce, then authenticate like any caller's token. Only
// admin_access principals and groups enter, plus the approvers: those the
// console's configuration lists and everyone an approval section of the
// policy in force names. Approvers see the approvals page only. The role
// is re-read from the configuration and the policy on every request: an
// operator who holds less than at sign-in (a reloaded policy no longer
// names them as an approver, an admin taken out of admin_access) has the
// session ended on every replica, as by a sign-out, and audited; they may
// sign in again with what they hold now.
//
// The session is an AES-256-GCM sealed cookie (HttpOnly, SameSite=Lax)
// under a key derived from the session key. It is Secure unless the
// config says browsers reach the console over plain http on loopback
// (CookiesSecure): console.public_url's scheme, else the OIDC redirect
// URL's, else a loopback-only admin listener; never the request's Host
// header, which a TLS-terminating proxy may set to a loopback name. Even
// then, a request straight from one of console.trusted_proxies (IP
// addresses or CIDR prefixes) whose X-Forwarded-Proto says https gets
// Secure cookies; the header never takes Secure away, and from anyone
// else it is ignored. Every state-changing form carries a CSRF
// token bound to the session (or, for the login form, to the sign-in
// cookie); a post without it is refused before anything is done. Signing
// out ends the session on every replica: its id joins the gateway's
// revocation store (Redis when configured, memory otherwise, kept until
// the cookie would have expired), and every page checks it, so a copy of
// the cookie kept from before opens nothing. When the store cannot
// answer, no page opens (503), and a sign-out that cannot be recorded
// says so and leaves the session valid. Every request the console refuses
// with 401 or 403 (a failed sign-in, someone who is neither admin nor
// approver, an approver on an admin page, a post without its CSRF token)
// is a console.refused audit event naming the principal when known, the
// path, the status, the reason and the client address; per client
// address at most 10 a minute are written, 1000 for all together
// (Deps.Refusals, package audit/throttle), the rest counted into one console.refused event with
// decision "suppressed" when the window ends, and
// capgate_refused_calls_total counts every one. Every
// response carries a Content-Security-Policy that allows no script and no
// inline style. Pages never render a capability token or a real resource
// id: resources appear by display name only.
package console
