package a2afront

import (
	"slices"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
)

// TestConfigFrom: the front serves the config's agents, ceilings and
// limits, and declares its OIDC issuers.
func TestConfigFrom(t *testing.T) {
	cfg := &config.Config{PublicURL: "https://gw.example", Agents: []config.Agent{{Name: "documents"}},
		OIDC:         []authn.IssuerConfig{{Issuer: "https://idp.example"}, {Issuer: "https://other.example"}},
		Capabilities: config.Capabilities{Issuer: "https://gw.example", MaxTTL: config.Duration(time.Hour)},
		Limits:       config.Limits{UpstreamTimeout: config.Duration(5 * time.Second), MaxTasks: 7, TaskTTL: config.Duration(time.Minute)},
		Listen:       config.Listener{StreamTimeout: config.Duration(time.Hour)},
	}
	got := ConfigFrom(cfg)
	if got.PublicURL != cfg.PublicURL || got.Issuer != cfg.Capabilities.Issuer || got.MaxTTL != time.Hour ||
		got.UpstreamTimeout != 5*time.Second || got.StreamTimeout != time.Hour || got.MaxTasks != 7 || got.TaskTTL != time.Minute ||
		len(got.Agents) != 1 || !slices.Equal(got.OIDCIssuers, []string{"https://idp.example", "https://other.example"}) {
		t.Fatalf("ConfigFrom = %+v", got)
	}
}
