// Package console is capgate's operator console, served on the admin
// listener under /console/ (a browser opening the listener's root is
// redirected there): server-rendered HTML (html/template) with its
// one stylesheet embedded in the binary, no script, no CDN and no build
// step.
//
// # Pages
//
//   - Pending approvals: who asks, the purpose, exactly what would be
//     issued (resources by display name), the policy rule and revision;
//     approve or deny with a reason. Decisions go to the approval store as
//     the signed-in principal (id and groups), which refuses anyone the
//     request's rule does not name as an approver, and the requester.
//     The page shows the newest 200 requests the operator may see,
//     filtered before that limit, and says so when more wait. Admins see the ids of stored requests that fail their MAC (tampered
//     with, or written without the gateway's key) named in a warning,
//     whatever status they claim; such a request is never decided or
//     redeemed, and never hidden.
//   - Live capabilities: filtered by principal, agent or grant; each root
//     drawn with its delegation tree as SVG (holders, operations, depth,
//     expiry, state). A live capability whose index record cannot be read
//     (corrupt, from an incompatible version, tampered with, deleted or
//     evicted before the capability expires) is named in a warning above
//     the trees, never hidden. Revoking first shows how many descendants
//     die with it, then revokes through the admin API's own path.
//   - Policy: the revision in force, the last reload and its error, and an
//     explain form.
//   - Shadow policy: with policy.shadow_file, the enforced and candidate
//     revisions, the newest policy.shadow_disagreement events of the
//     audit file (the last MiB of it) and the diff between the two
//     policies (policy/impact); without one, how to configure it.
//   - Emergency stop: what is frozen, by whom, since when and why, with
//     a form that freezes an agent or a principal (a reason required) and
//     one per entry that lifts it, both through the admin API's path
//     (package freeze; see the admin API's POST /admin/freeze).
//   - Audit: the newest events of the audit file and the chain status,
//     verified on every view. Without audit.file the page says that it
//     has nothing to read.
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
// is re-read from the configuration and the policy on every request.
//
// The session is an AES-256-GCM sealed cookie (HttpOnly, SameSite=Lax)
// under a key derived from the session key. It is Secure unless the
// config says browsers reach the console over plain http on loopback
// (CookiesSecure): console.public_url's scheme, else the OIDC redirect
// URL's, else a loopback-only admin listener; never the request's Host
// header, which a TLS-terminating proxy may set to a loopback name. Every state-changing form carries a CSRF
// token bound to the session (or, for the login form, to the sign-in
// cookie); a post without it is refused before anything is done. Signing
// out ends the session on every replica: its id joins the gateway's
// revocation store (Redis when configured, memory otherwise, kept until
// the cookie would have expired), and every page checks it, so a copy of
// the cookie kept from before opens nothing. When the store cannot
// answer, no page opens (503), and a sign-out that cannot be recorded
// says so and leaves the session valid. Every
// response carries a Content-Security-Policy that allows no script and no
// inline style. Pages never render a capability token or a real resource
// id: resources appear by display name only.
package console
