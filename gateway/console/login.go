package console

import (
	"errors"
	"net/http"

	"github.com/capgate/capgate/gateway/authn"
)

// loginView is the login page's data.
type loginView struct {
	Error    string
	OIDC     string
	DevLogin bool
	CSRF     string
}

// loginPage shows the sign-in methods. It starts a sign-in (the login
// cookie) whose nonce the dev-key form's CSRF token is bound to.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.showLogin(w, r, http.StatusOK, "")
}

func (c *Console) showLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p, err := c.startPending(w, r)
	if err != nil {
		c.fail(w, http.StatusInternalServerError, "The sign-in could not start.")
		return
	}
	v := loginView{Error: msg, DevLogin: c.cfg.DevLogin, CSRF: c.seal.token("login", p.Nonce)}
	if c.oidc != nil {
		v.OIDC = c.oidc.cfg.Issuer
	}
	c.render(w, status, "login", view{Title: "Sign in", Page: v})
}

// startPending writes a fresh login cookie and returns what it holds.
func (c *Console) startPending(w http.ResponseWriter, r *http.Request) (pending, error) {
	p := pending{Nonce: randomText(), Expires: c.deps.Now().Add(loginTTL).Unix()}
	v, err := c.seal.seal(loginCookie, p)
	if err != nil {
		return pending{}, err
	}
	c.setCookie(w, r, loginCookie, v, loginTTL)
	return p, nil
}

// devLogin signs in with a dev key posted by the login form, whose CSRF
// token must match the login cookie.
func (c *Console) devLogin(w http.ResponseWriter, r *http.Request) {
	if !c.cfg.DevLogin {
		c.fail(w, http.StatusNotFound, "Dev-key sign-in is not configured.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	var p pending
	if err := c.seal.open(r, loginCookie, &p); err != nil || c.deps.Now().Unix() >= p.Expires ||
		!c.seal.checkToken("login", p.Nonce, r.PostFormValue("csrf")) {
		c.refuse(w, r, http.StatusForbidden, "", "sign-in CSRF token missing or wrong",
			"The form's CSRF token is missing or wrong; nothing was done.")
		return
	}
	pr, err := c.deps.Authenticator.AuthenticateToken(r.Context(), r.PostFormValue("key"))
	if err == nil && pr.Issuer != authn.DevIssuer {
		err = authn.ErrInvalidCredentials
	}
	if err != nil {
		c.audited(r, http.StatusUnauthorized, "", "not a dev key of this gateway")
		c.showLogin(w, r, http.StatusUnauthorized, "That key is not a dev key of this gateway.")
		return
	}
	c.enter(w, r, pr)
}

// enter starts the session of an authenticated principal, if it may enter.
func (c *Console) enter(w http.ResponseWriter, r *http.Request, pr *authn.Principal) {
	r0 := c.roleOf(pr.ID, pr.Groups)
	if r0 == roleNone {
		c.deps.Logger.InfoContext(r.Context(), "console: sign-in refused", "principal", pr.ID)
		c.refuse(w, r, http.StatusForbidden, pr.ID, "neither an admin nor an approver",
			pr.ID+" is neither a capgate admin nor an approver.")
		return
	}
	s := session{Principal: pr.ID, Issuer: pr.Issuer, Groups: pr.Groups, SID: randomText(), Role: r0,
		Expires: c.deps.Now().Add(sessionTTL).Unix()}
	v, err := c.seal.seal(sessionCookie, s)
	if err != nil {
		c.fail(w, http.StatusInternalServerError, "The session could not be written.")
		return
	}
	c.clearCookie(w, r, loginCookie)
	c.setCookie(w, r, sessionCookie, v, sessionTTL)
	c.deps.Logger.InfoContext(r.Context(), "console: signed in", "principal", pr.ID)
	http.Redirect(w, r, "/console/", http.StatusSeeOther)
}

// logout ends the session on every replica before it clears the cookie:
// a copy of the cookie kept elsewhere opens no page afterwards. If the end
// cannot be recorded, the operator is told and stays signed in.
func (c *Console) logout(w http.ResponseWriter, r *http.Request, op operator) {
	if err := c.endSession(r.Context(), op.session); err != nil {
		c.deps.Logger.ErrorContext(r.Context(), "console: sign-out not recorded", "principal", op.Principal, "error", err)
		c.fail(w, http.StatusServiceUnavailable, "The sign-out could not be recorded, so the session is still valid. Try again.")
		return
	}
	c.deps.Logger.InfoContext(r.Context(), "console: signed out", "principal", op.Principal)
	c.clearCookie(w, r, sessionCookie)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// errState is an OIDC callback that does not belong to the sign-in the
// browser started.
var errState = errors.New("console: the sign-in state does not match")
