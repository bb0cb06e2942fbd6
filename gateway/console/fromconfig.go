package console

import (
	"fmt"

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
		OIDC: cs.OIDC, AuditFile: cfg.Audit.File}
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
