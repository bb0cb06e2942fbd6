package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
)

// BuildOptions are the process-level dependencies of FromConfig.
type BuildOptions struct {
	Logger *slog.Logger
	Now    func() time.Time
	// HTTPClient is used for OIDC discovery and JWKS fetches.
	HTTPClient *http.Client
	Getenv     func(string) string
}

// FromConfig builds a gateway and its authenticator from a loaded config.
func FromConfig(ctx context.Context, cfg *config.Config, opts BuildOptions) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	a, err := authn.New(ctx, issuers(cfg.OIDC), devKeys(cfg.DevKeys), authn.Options{
		HTTPClient: opts.HTTPClient, Now: opts.Now, Logger: opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: authentication: %w", err)
	}
	return New(ctx, Options{
		Config: cfg, Authenticator: a, Logger: opts.Logger, Now: opts.Now,
		Getenv: opts.Getenv, ReadFile: os.ReadFile,
	})
}

func issuers(in []config.Issuer) []authn.IssuerConfig {
	out := make([]authn.IssuerConfig, 0, len(in))
	for _, is := range in {
		out = append(out, authn.IssuerConfig{
			Issuer: is.Issuer, Audience: is.Audience, Algorithms: is.Algorithms,
			UserClaim: is.UserClaim, AgentClaim: is.AgentClaim, GroupsClaim: is.GroupsClaim,
			RequireEmailVerified: is.RequireEmailVerified,
		})
	}
	return out
}

func devKeys(in []config.DevKey) []authn.DevKey {
	out := make([]authn.DevKey, 0, len(in))
	for _, k := range in {
		out = append(out, authn.DevKey{Hash: k.Hash, Principal: k.Principal, Groups: k.Groups})
	}
	return out
}
