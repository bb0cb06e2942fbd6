package console

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/capgate/capgate/gateway/config"
)

// FromConfig returns the console the gateway's config describes, or nil
// when the config has no console section. The admins are admin_access,
// the approvers console.approvers (and, through deps.Policy, everyone the
// policy names as an approver); the dev-key form is shown when dev keys
// are configured; the audit page reads audit.file. deps.Getenv reads
// the OIDC client secret and the session key; nil reads nothing.
func FromConfig(cfg *config.Config, deps Deps) (*Console, error) {
	cs := cfg.Console
	if cs == nil {
		return nil, nil
	}
	getenv := deps.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := Config{Access: cfg.AdminAccess, Approvers: cs.Approvers, DevLogin: len(cfg.DevKeys) > 0,
		OIDC: cs.OIDC, AuditFile: cfg.Audit.File, InsecureCookies: !CookiesSecure(cfg)}
	proxies, err := config.ParseProxies(cs.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("console.trusted_proxies: %w", err)
	}
	c.TrustedProxies = proxies
	for _, s := range cfg.MCPServers {
		c.MCPServers = append(c.MCPServers, s.Name)
	}
	if cs.OIDC != nil && cs.OIDC.ClientSecretEnv != "" {
		c.ClientSecret = getenv(cs.OIDC.ClientSecretEnv)
	}
	if cs.SessionKeyEnv != "" {
		if c.SessionKey = []byte(getenv(cs.SessionKeyEnv)); len(c.SessionKey) < 32 {
			return nil, fmt.Errorf("console.session_key_env: %s must hold at least 32 bytes", cs.SessionKeyEnv)
		}
	}
	return New(c, deps)
}

// CookiesSecure reports whether the console's cookies carry the Secure
// flag under cfg. The address browsers use decides, never a request's Host
// header: console.public_url when set, else the OIDC redirect URL (both
// an https URL, or http on a loopback host, which the config's validation
// enforces). Without either, the cookies are Secure unless the admin
// listener binds a loopback address only (127.0.0.1:9090, [::1]:9090,
// localhost:9090): a listener on every interface may sit behind a
// TLS-terminating proxy, and browsers accept Secure cookies from
// http://localhost too.
func CookiesSecure(cfg *config.Config) bool {
	cs := cfg.Console
	switch {
	case cs != nil && cs.PublicURL != "":
		return schemeHTTPS(cs.PublicURL)
	case cs != nil && cs.OIDC != nil:
		return schemeHTTPS(cs.OIDC.RedirectURL)
	case cfg.Admin == nil:
		return true
	}
	host, _, err := net.SplitHostPort(cfg.Admin.Addr)
	return err != nil || !loopback(host)
}

// BaseURL is the console's address as browsers reach it, for links to it
// (the approval webhook's): console.public_url, else the origin of the
// OIDC redirect URL; empty without a console or either address.
func BaseURL(cfg *config.Config) string {
	cs := cfg.Console
	switch {
	case cs == nil:
		return ""
	case cs.PublicURL != "":
		return strings.TrimRight(cs.PublicURL, "/")
	case cs.OIDC != nil:
		if u, err := url.Parse(cs.OIDC.RedirectURL); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return ""
}

// schemeHTTPS reports whether raw is an https URL; anything else that is
// not plainly http counts as https, so that a doubt sets Secure.
func schemeHTTPS(raw string) bool {
	u, err := url.Parse(raw)
	return err != nil || u.Scheme != "http"
}
