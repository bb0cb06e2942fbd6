package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
	"github.com/capgate/capgate/revocation/redistest"
)

// TestRedisWithoutPersistenceRefused: a gateway does not start on a Redis
// that keeps nothing across a restart, unless the config allows it.
func TestRedisWithoutPersistenceRefused(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		allow   bool
		wantErr error
	}{
		{"no persistence", nil, false, revocation.ErrNoPersistence},
		{"no persistence, allowed", nil, true, nil},
		{"appendonly", []string{"--appendonly", "yes"}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.args...)
			cfg, err := config.Parse([]byte(configYAML("http://127.0.0.1:1/", "http://127.0.0.1:1/", "http://127.0.0.1:1")), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
				Timeout: config.Duration(250 * time.Millisecond), MaxStaleness: config.Duration(time.Second),
				AllowNoPersistence: tc.allow}
			gw, err := gateway.FromConfig(context.Background(), cfg, gateway.BuildOptions{Runtime: platform.Runtime{Getenv: func(string) string { return "lab-secret" }}})
			if err == nil {
				gw.Close()
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("FromConfig = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestReplicasSurviveRedisLoss: Redis forgets everything (FLUSHALL) while
// two replicas run. The revoked capability is refused at every moment, and
// both replicas recover by themselves: ready again, serving the live one.
func TestReplicasSurviveRedisLoss(t *testing.T) {
	srv := redistest.Start(t)
	a, b := replicas(t, srv, 400*time.Millisecond)
	live, revoked := a.aliceQ1(), a.aliceQ1()
	if _, r := a.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": revoked.ID}); r.Error != nil {
		t.Fatal(r.Error)
	}
	waitFor(t, func() bool { return b.invokeWithToken("alice-dev-key", revoked).Error != nil })
	if err := srv.Client.FlushAll(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	checkDuring(t, b, live, revoked, time.Second)
	for _, h := range []*harness{a, b} {
		waitFor(t, func() bool { return status(h.srv.URL+"/readyz") == http.StatusOK })
		waitFor(t, func() bool { return h.invokeWithToken("alice-dev-key", live).Error == nil })
		if r := h.invokeWithToken("alice-dev-key", revoked); r.Error == nil {
			t.Fatal("the revoked capability came back to life after Redis lost its data")
		}
	}
	if n, err := srv.Client.Exists(t.Context(), "capgate:rev:epoch").Result(); err != nil || n != 1 {
		t.Fatalf("epoch marker not re-established: %d, %v", n, err)
	}
}

// TestGivenRedisRefused: the shared Redis client is opened from the
// config; a runtime that brings its own is refused rather than ignored.
func TestGivenRedisRefused(t *testing.T) {
	cfg, err := config.Parse([]byte(configYAML("http://127.0.0.1:1/", "http://127.0.0.1:1/", "http://127.0.0.1:1")), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.FromConfig(context.Background(), cfg, gateway.BuildOptions{
		Runtime: platform.Runtime{Redis: &platform.Redis{}, Getenv: func(string) string { return "lab-secret" }}})
	if err == nil {
		gw.Close()
		t.Fatal("FromConfig accepted a given Redis client")
	}
}
