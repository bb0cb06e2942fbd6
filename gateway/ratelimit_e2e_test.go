package gateway_test

import (
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestReplicasShareIssuanceBudget: two replicas on one Redis, a budget of
// two issuances a minute per principal. Alice spends it on one replica
// and is refused on the other, with retryAfter and without the agent
// being asked; bob keeps his own budget.
func TestReplicasShareIssuanceBudget(t *testing.T) {
	srv := redistest.Start(t)
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(replicaTimeout), MaxStaleness: config.Duration(2 * time.Second),
			AllowNoPersistence: true}
		c.RateLimits = ratelimit.Config{Issue: ratelimit.Rate{Events: 2, Period: time.Minute, Burst: 2}}
	}
	bmod := func(o *gateway.BuildOptions) { o.Keys = ks }
	a, b := newHarnessWith(t, nil, mod, bmod), newHarnessWith(t, nil, mod, bmod)
	params := map[string]any{"grants": []string{"documents:read"}, "resourceQuery": map[string]any{"collection": "reports"}}
	for i, h := range []*harness{a, b} {
		if _, r := h.rpc("alice-dev-key", "a2a/capabilities/request", params); r.Error != nil {
			t.Fatalf("issuance %d refused: %+v", i, r.Error)
		}
	}
	resolutions := func() int {
		return a.docs.Recorder().CountRPC("a2a/resources/resolve") + b.docs.Recorder().CountRPC("a2a/resources/resolve")
	}
	resolved := resolutions()
	for _, h := range []*harness{a, b} {
		_, r := h.rpc("alice-dev-key", "a2a/capabilities/request", params)
		wantCode(t, r, -32050, "rate_limited")
		if s, _ := r.Error.Data["retryAfter"].(float64); s < 1 {
			t.Errorf("retryAfter = %v, want whole seconds ≥ 1", r.Error.Data["retryAfter"])
		}
	}
	if n := resolutions(); n != resolved {
		t.Errorf("the agent was asked %d more times for refused issuances", n-resolved)
	}
	if _, r := b.rpc("carol-dev-key", "a2a/capabilities/request", map[string]any{"grants": []string{"documents:read"}}); r.Error != nil && r.Error.Code == -32050 {
		t.Fatalf("carol is limited by alice's use: %+v", r.Error)
	}
}
