package gateway

import (
	"fmt"
	"net/http"

	"github.com/capgate/capgate/gateway/admin"
	"github.com/capgate/capgate/gateway/console"
)

// newConsole builds the operator console when the config has a console
// section; nil otherwise. It revokes through api, the admin API it is
// served beside.
func (g *Gateway) newConsole(opts Options, api *admin.API) (http.Handler, error) {
	cs := g.cfg.Console
	if cs == nil {
		return nil, nil
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := console.Config{Access: g.cfg.AdminAccess, Approvers: cs.Approvers, DevLogin: len(g.cfg.DevKeys) > 0,
		OIDC: cs.OIDC, AuditFile: g.cfg.Audit.File}
	if cs.OIDC != nil && cs.OIDC.ClientSecretEnv != "" {
		cfg.ClientSecret = getenv(cs.OIDC.ClientSecretEnv)
	}
	if cs.SessionKeyEnv != "" {
		if cfg.SessionKey = []byte(getenv(cs.SessionKeyEnv)); len(cfg.SessionKey) < 32 {
			return nil, fmt.Errorf("gateway: console.session_key_env: %s must hold at least 32 bytes", cs.SessionKeyEnv)
		}
	}
	c, err := console.New(cfg, console.Deps{
		Authenticator: g.authn, Index: g.caps.Index, Verifier: g.caps.Verifier,
		Revocations: g.caps.Revocations, Revoker: api, Policy: g.caps.Policy,
		Approvals: g.caps.Approvals, Logger: g.logger, Now: g.now,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	return c.Handler(), nil
}
