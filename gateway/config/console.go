package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/capgate/capgate/gateway/authn"
)

// Console configures the operator console served on the admin listener
// under /console/. Operators sign in with OIDC (when OIDC is set) or, in
// the quickstart, with a dev key (when dev keys are configured); only
// admin_access principals and the approvers may enter.
type Console struct {
	// OIDC, when set, signs operators in with the authorization-code flow
	// and PKCE.
	OIDC *ConsoleOIDC `yaml:"oidc,omitempty"`
	// Approvers may also enter, to see and decide pending approvals only.
	// Everyone an approval section of the policy names enters as an
	// approver without being listed here.
	Approvers AdminAccess `yaml:"approvers,omitempty"`
	// SessionKeyEnv names the environment variable holding the session key
	// (at least 32 bytes), shared by replicas behind one address. Empty
	// means a random key per process: sessions end when it restarts.
	SessionKeyEnv string `yaml:"session_key_env,omitempty"`
	// PublicURL is the console's address as browsers reach it, say
	// https://capgate-admin.example.com behind a TLS-terminating proxy:
	// https, or http on a loopback host only. Its scheme decides whether
	// the session cookies are Secure. Empty means the OIDC redirect URL's,
	// or else Secure unless the admin listener binds loopback only.
	PublicURL string `yaml:"public_url,omitempty"`
	// TrustedProxies lists the TLS-terminating proxies (IP addresses or
	// CIDR prefixes) whose X-Forwarded-Proto the console believes: a
	// request from one of them saying https gets Secure cookies even where
	// public_url or the listener would leave them off. The header never
	// takes Secure away, and from anyone else it is ignored.
	TrustedProxies []string `yaml:"trusted_proxies,omitempty"`
}

// ParseProxies reads trusted_proxies entries: an IP address, or a CIDR
// prefix (10.0.0.0/8).
func ParseProxies(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		if a, err := netip.ParseAddr(s); err == nil {
			if a.Zone() != "" {
				return nil, fmt.Errorf("%q names a zone: write the address without it", s)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		pf, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix", s)
		}
		out = append(out, pf.Masked())
	}
	return out, nil
}

// ConsoleOIDC is the console's OIDC client.
type ConsoleOIDC struct {
	// Issuer is one of the configured oidc issuers, byte for byte. The ID
	// token it returns must satisfy that issuer's audience.
	Issuer string `yaml:"issuer"`
	// ClientID is the console's client id at the issuer.
	ClientID string `yaml:"client_id"`
	// ClientSecretEnv names the environment variable holding the client
	// secret; empty for a public client (PKCE alone).
	ClientSecretEnv string `yaml:"client_secret_env,omitempty"`
	// RedirectURL is the console's callback as the browser reaches it:
	// the admin listener's address followed by /console/callback.
	RedirectURL string `yaml:"redirect_url"`
}

func (c *Config) validateConsole(add addFunc) {
	cs := c.Console
	if cs == nil {
		return
	}
	if c.Admin == nil {
		add("console", "needs the admin listener it is served on")
	}
	if cs.PublicURL != "" {
		if err := checkConsoleURL(cs.PublicURL); err != nil {
			add("console.public_url", "%v", err)
		}
	}
	for i, p := range cs.TrustedProxies {
		if _, err := ParseProxies([]string{p}); err != nil {
			add(fmt.Sprintf("console.trusted_proxies[%d]", i), "%v", err)
		}
	}
	for i, p := range cs.Approvers.Principals {
		if !validPrincipal(p) {
			add(fmt.Sprintf("console.approvers.principals[%d]", i), "%q must start with user: or agent:", p)
		}
	}
	if cs.OIDC == nil {
		if len(c.DevKeys) == 0 {
			add("console", "needs oidc: without dev keys nobody could sign in")
		}
		return
	}
	o := cs.OIDC
	if !slices.ContainsFunc(c.OIDC, func(ic authn.IssuerConfig) bool { return ic.Issuer == o.Issuer }) {
		add("console.oidc.issuer", "%q is not one of the configured oidc issuers", o.Issuer)
	}
	if o.ClientID == "" {
		add("console.oidc.client_id", "is required")
	}
	if err := checkConsoleURL(o.RedirectURL); err != nil {
		add("console.oidc.redirect_url", "%v", err)
	}
}

// checkConsoleURL checks an address browsers reach the console at: an
// absolute https URL, or http on a loopback host (the session cookie then
// goes without Secure).
func checkConsoleURL(raw string) error {
	if err := checkURL(raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%q must use https: the console's session cookie would travel in clear (http is for a loopback host only)", raw)
	}
	return nil
}

// isLoopbackHost reports whether host (without a port) is localhost or a
// loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
