package console

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// contentSecurityPolicy allows the console's own stylesheet and nothing
// else: no script at all, no inline style, no frame, no foreign form
// target.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; " +
	"script-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Config says who may enter the console and how they sign in.
type Config struct {
	// Access lists the admins: every page.
	Access config.AdminAccess
	// Approvers may see and decide pending approvals only. Everyone an
	// approval section of the policy in force names (Deps.Policy) enters
	// as an approver too, without being listed here.
	Approvers config.AdminAccess
	// DevLogin shows the dev-key sign-in form; set it only when dev keys
	// are configured.
	DevLogin bool
	// OIDC, when set, signs operators in with the authorization-code flow
	// and PKCE; ClientSecret is its secret (empty for a public client).
	OIDC         *config.ConsoleOIDC
	ClientSecret string
	// SessionKey seals the cookies and derives the CSRF key; at least 32
	// bytes. Nil means a random key: sessions end with the process.
	SessionKey []byte
	// AuditFile is the audit trail the audit page reads; empty when the
	// trail goes to standard output.
	AuditFile string
	// TrustedProxies are the proxies whose X-Forwarded-Proto: https makes
	// the cookies Secure even with InsecureCookies (config
	// console.trusted_proxies).
	TrustedProxies []netip.Prefix
	// MCPServers names the upstream MCP servers (config mcp_servers): a
	// capability whose audience is one of them is marked MCP on the
	// capabilities pages.
	MCPServers []string
	// InsecureCookies leaves the Secure flag off the cookies. Set it only
	// for a console that browsers reach over plain http on a loopback
	// address; FromConfig decides it (see CookiesSecure).
	InsecureCookies bool
}

// Revoker revokes a capability and its descendants for an operator; the
// admin API's RevokeCapability is one.
type Revoker interface {
	RevokeCapability(ctx context.Context, admin, id string) error
}

// PolicySource is the policy in force. When it also has
// Status() policy.ReloadStatus (a policy.Watcher), the policy page shows
// the last reload attempt.
type PolicySource interface {
	Current() *policy.Policy
}

// Deps are the console's collaborators. Approvals may be nil: the page
// then says that no approval store is configured. Policy also names the
// approvers who may enter. Revocations, besides answering for
// capabilities, records signed-out sessions, so that every replica
// sharing it refuses their cookies.
type Deps struct {
	Authenticator *authn.Authenticator
	Index         capindex.Index
	Verifier      *captoken.Verifier
	Revocations   revocation.Store
	Revoker       Revoker
	Policy        PolicySource
	Approvals     Approvals
	// Audit receives a console.refused event for every request the
	// console refuses with 401 or 403; nil records nothing.
	Audit *slog.Logger
	// Refusals bounds those events per client (its Audit should be
	// Audit); nil writes every one to Audit.
	Refusals *throttle.Throttle
	// Freezer is the emergency stop (freeze.go); nil says there is none.
	Freezer Freezer
	// Shadow is the candidate policy deciding beside Policy without
	// enforcing (shadow.go); nil when none is configured.
	Shadow PolicySource
	// HTTPClient talks to the OIDC issuer; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Runtime's clock and logger must be set; FromConfig reads secrets
	// with its Getenv.
	platform.Runtime
}

// Console is the operator console.
type Console struct {
	cfg   Config
	deps  Deps
	seal  *sealer
	pages map[string]*template.Template
	oidc  *oidcClient
	// diffs keeps the shadow page's last policy diff.
	diffs shadowDiffs
}

// New returns the console. deps.Runtime's Logger and Now must be set.
func New(cfg Config, deps Deps) (*Console, error) {
	key := cfg.SessionKey
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	s, err := newSealer(key)
	if err != nil {
		return nil, err
	}
	if deps.Logger == nil || deps.Now == nil || deps.Authenticator == nil || deps.Revocations == nil {
		return nil, errors.New("console: Logger, Now, Authenticator and Revocations are required")
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{cfg: cfg, deps: deps, seal: s, pages: pages}
	if cfg.OIDC != nil {
		c.oidc = newOIDCClient(*cfg.OIDC, cfg.ClientSecret, deps.HTTPClient)
	}
	return c, nil
}

// Handler serves the console under /console/, and redirects the root
// ("/") there.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /console/login", c.loginPage)
	mux.HandleFunc("POST /console/login", c.devLogin)
	mux.HandleFunc("GET /console/login/oidc", c.oidcStart)
	mux.HandleFunc("GET /console/callback", c.oidcCallback)
	mux.Handle("POST /console/logout", c.signedIn(roleApprover, c.logout))
	mux.HandleFunc("GET /{$}", toConsole)
	mux.Handle("GET /console/{$}", c.signedIn(roleApprover, c.home))
	mux.Handle("GET /console/approvals", c.signedIn(roleApprover, c.approvalsPage))
	mux.Handle("POST /console/approvals", c.signedIn(roleApprover, c.decide))
	mux.Handle("GET /console/capabilities", c.signedIn(roleAdmin, c.capabilitiesPage))
	mux.Handle("GET /console/capability", c.signedIn(roleAdmin, c.revokeConfirm))
	mux.Handle("GET /console/revoke", c.signedIn(roleAdmin, c.revokeConfirm))
	mux.Handle("POST /console/revoke", c.signedIn(roleAdmin, c.revoke))
	mux.Handle("GET /console/policy", c.signedIn(roleAdmin, c.policyPage))
	mux.Handle("GET /console/audit", c.signedIn(roleAdmin, c.auditPage))
	mux.Handle("GET /console/freeze", c.signedIn(roleAdmin, c.freezePage))
	mux.Handle("GET /console/shadow", c.signedIn(roleAdmin, c.shadowPage))
	mux.Handle("POST /console/freeze", c.signedIn(roleAdmin, c.freezePost))
	return headers(mux)
}

// headers sets the security headers of every console response.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// role is what a signed-in operator may do.
type role int

const (
	roleNone role = iota
	roleApprover
	roleAdmin
)

// roleOf places a principal by the configured sets and by the approvers
// the policy in force names, on every request: an approver named by a
// newly loaded policy enters, one it no longer names is out.
func (c *Console) roleOf(id string, groups []string) role {
	in := func(a config.AdminAccess) bool {
		return slices.Contains(a.Principals, id) || slices.ContainsFunc(a.Groups, func(g string) bool {
			return slices.Contains(groups, g)
		})
	}
	switch {
	case in(c.cfg.Access):
		return roleAdmin
	case in(c.cfg.Approvers):
		return roleApprover
	case c.deps.Policy != nil && c.deps.Policy.Current().Approvers().Admits(policy.Principal{ID: id, Groups: groups}):
		return roleApprover
	}
	return roleNone
}

// operator is the signed-in operator of one request.
type operator struct {
	session
	Role role
	CSRF string
}

// IsAdmin reports whether the operator sees every page.
func (o operator) IsAdmin() bool { return o.Role == roleAdmin }

// principal is the operator as the policy and the approval store see
// them: the id and groups authenticated at sign-in.
func (o operator) principal() policy.Principal {
	return policy.Principal{ID: o.Principal, Issuer: o.Issuer, Groups: o.Groups}
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, op operator)

// signedIn runs next for an operator holding at least min, and checks the
// CSRF token of every POST before next sees the form.
func (c *Console) signedIn(min role, next handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s session
		if err := c.seal.open(r, sessionCookie, &s); err != nil || c.deps.Now().Unix() >= s.Expires || s.SID == "" {
			http.Redirect(w, r, "/console/login", http.StatusSeeOther)
			return
		}
		switch ended, err := c.sessionEnded(r.Context(), s); {
		case err != nil:
			c.deps.Logger.ErrorContext(r.Context(), "console: cannot tell whether the session was signed out", "error", err)
			c.fail(w, http.StatusServiceUnavailable, "The console cannot check the session right now; nothing was done. Try again.")
			return
		case ended:
			c.clearCookie(w, r, sessionCookie)
			http.Redirect(w, r, "/console/login", http.StatusSeeOther)
			return
		}
		op := operator{session: s, Role: c.roleOf(s.Principal, s.Groups), CSRF: c.seal.token("session", s.SID)}
		if op.Role < s.Role {
			c.endDemoted(w, r, op)
			return
		}
		if op.Role < min {
			c.refuse(w, r, http.StatusForbidden, s.Principal, "not an admin",
				"This page is for capgate admins: approvers see the approvals page only.")
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if !c.seal.checkToken("session", s.SID, r.PostFormValue("csrf")) {
				c.refuse(w, r, http.StatusForbidden, s.Principal, "CSRF token missing or wrong",
					"The form's CSRF token is missing or wrong; nothing was done.")
				return
			}
		}
		next(w, r, op)
	})
}

// endDemoted ends the session of an operator who holds less than at
// sign-in (the configuration or a reloaded policy took the role away),
// on every replica, as a sign-out does; they may sign in again with what
// they hold now.
func (c *Console) endDemoted(w http.ResponseWriter, r *http.Request, op operator) {
	if err := c.endSession(r.Context(), op.session); err != nil {
		c.deps.Logger.ErrorContext(r.Context(), "console: ending a demoted operator's session failed", "principal", op.Principal, "error", err)
		c.fail(w, http.StatusServiceUnavailable, "The console cannot check the session right now; nothing was done. Try again.")
		return
	}
	c.deps.Logger.InfoContext(r.Context(), "console: session ended, the role was taken away", "principal", op.Principal)
	c.audited(r, http.StatusForbidden, op.Principal, "role taken away since sign-in: session ended")
	c.clearCookie(w, r, sessionCookie)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// toConsole sends a browser that opens the admin listener's root to the
// console; mount the console's handler at "GET /{$}" for it.
func toConsole(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/console/", http.StatusSeeOther)
}

func (c *Console) home(w http.ResponseWriter, r *http.Request, op operator) {
	to := "/console/approvals"
	if op.IsAdmin() && c.deps.Approvals == nil {
		to = "/console/capabilities"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
