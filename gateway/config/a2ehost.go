package config

import (
	"fmt"

	"github.com/capgate/capgate/policy"
)

// A2EHost is one upstream A2E environment host, under a2e_hosts. The
// host's secret is not in the file: AuthTokenEnv names the environment
// variable that holds it. The A2E front builds its hosts from these
// (a2efront.Open).
type A2EHost struct {
	// Name is the path segment under /a2e/.
	Name string `yaml:"name"`
	// URL is the host's A2E HTTP transport base (/session, /send, /stream).
	URL string `yaml:"url"`
	// Capabilities are the A2E capabilities the host may offer; policy
	// rules may only name these.
	Capabilities []string `yaml:"capabilities"`
	// AuthTokenEnv names the environment variable holding the host's own
	// shared secret, which replaces the caller's auth_token.
	AuthTokenEnv string `yaml:"auth_token_env,omitempty"`
	// RequireCredentials makes every request for the host (/session,
	// /send, /stream) carry the caller's bearer credential, authenticating
	// as the session's principal, so a session id alone is not enough.
	// Stock A2E clients send credentials only in the handshake, which is
	// why it is off by default; without it, sessions reserved without
	// credentials are held to a small share of the pool and a few per
	// client address.
	RequireCredentials bool `yaml:"require_credentials,omitempty"`
}

func (c *Config) validateA2EHosts(add addFunc) {
	seen := map[string]bool{}
	for i, h := range c.A2EHosts {
		p := fmt.Sprintf("a2e_hosts[%d]", i)
		if !agentName.MatchString(h.Name) {
			add(p+".name", "%q must be lower-case letters, digits and dashes", h.Name)
		} else if seen[h.Name] {
			add(p+".name", "%q is defined twice", h.Name)
		}
		seen[h.Name] = true
		if err := checkURL(h.URL); err != nil {
			add(p+".url", "%v", err)
		}
		if h.AuthTokenEnv == "" {
			add(p+".auth_token_env", "is required: the host's own shared secret replaces the caller's auth_token")
		}
		for _, cp := range h.Capabilities {
			if !policy.IsA2ECapability(cp) {
				add(p+".capabilities", "%q is not an A2E capability", cp)
			}
		}
	}
}
