package gateway_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/revocation/redistest"
)

// Redis call timeouts of the replicas in these tests.
const (
	// replicaTimeout is generous: where Redis stays up, a loaded CI
	// machine running the race detector can take hundreds of milliseconds
	// to answer, and a timeout would be a refusal no test asked for.
	replicaTimeout = 2 * time.Second
	// outageTimeout is for a test that pauses Redis and bounds how long a
	// call may hang: the timeout is then what it tests.
	outageTimeout = 250 * time.Millisecond
)

// replicas starts two gateways sharing one Redis and one key set: two
// replicas of one gateway, with the generous replicaTimeout.
func replicas(t *testing.T, srv *redistest.Server, staleness time.Duration) (*harness, *harness) {
	t.Helper()
	start := replicaStarter(t, srv, staleness, replicaTimeout)
	return start(), start()
}

// replicaStarter returns a function that starts one more replica of a
// gateway on srv, each with the same key set and the Redis call timeout.
func replicaStarter(t *testing.T, srv *redistest.Server, staleness, timeout time.Duration) func() *harness {
	t.Helper()
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(c *config.Config) {
		c.Redis = &config.Redis{URL: "redis://" + srv.Addr + "/0", Prefix: "capgate:",
			Timeout: config.Duration(timeout), MaxStaleness: config.Duration(staleness),
			AllowNoPersistence: true}
	}
	bmod := func(o *gateway.BuildOptions) { o.Keys = ks }
	return func() *harness { return newHarnessWith(t, nil, mod, bmod) }
}

func (h *harness) invokeFirst(key string, c issued) rpcResponse {
	h.t.Helper()
	_, r := h.rpc(key, "a2a/skill/invoke", invokeParams("retrieve_document", c.ID,
		map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}))
	return r
}

// invokeWithToken presents the token too, so the call does not depend on
// the index (which a Redis restart without persistence empties).
func (h *harness) invokeWithToken(key string, c issued) rpcResponse {
	h.t.Helper()
	_, r := h.rpc(key, "a2a/skill/invoke", withToken(invokeParams("retrieve_document", c.ID,
		map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}), c.Token))
	return r
}

// TestReplicasShareCapabilities issues on A and invokes by id alone on B,
// then revokes on A and measures how long B takes to refuse.
func TestReplicasShareCapabilities(t *testing.T) {
	srv := redistest.Start(t)
	a, b := replicas(t, srv, 2*time.Second)
	var lat []time.Duration
	for trial := 0; trial < 40; trial++ {
		c := a.aliceQ1()
		if r := b.invokeFirst("alice-dev-key", c); r.Error != nil {
			t.Fatalf("trial %d: a capability issued on A is refused on B: %+v", trial, r.Error)
		}
		if _, r := a.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": c.ID}); r.Error != nil {
			t.Fatalf("revoke on A: %+v", r.Error)
		}
		start := time.Now()
		for {
			r := b.invokeFirst("alice-dev-key", c)
			if r.Error != nil {
				wantCode(t, r, -32043, "capability_revoked")
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("trial %d: B still accepts a capability revoked on A after 5s", trial)
			}
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	t.Logf("revocation on A refused on B after: p50 %v, p99 %v, max %v (%d trials; includes one invoke round trip)",
		lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], len(lat))
}

// TestReplicasCascade revokes a root on one replica and checks every
// descendant, depth 1 to 3, on both; then revokes a middle link of a new
// chain and checks that only its subtree dies.
func TestReplicasCascade(t *testing.T) {
	srv := redistest.Start(t)
	a, b := replicas(t, srv, 2*time.Second)
	chain := func() []issued {
		out := []issued{a.aliceQ1()}
		for d := 1; d <= 2; d++ {
			c, r := a.attenuate("alice-dev-key", map[string]any{"capabilityId": out[d-1].ID, "constraints": map[string]any{}})
			if r.Error != nil {
				t.Fatalf("attenuate depth %d: %+v", d, r.Error)
			}
			out = append(out, c)
		}
		return out
	}
	waitRefused := func(h *harness, c issued) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for h.invokeFirst("alice-dev-key", c).Error == nil {
			if time.Now().After(deadline) {
				t.Fatalf("%s still alive", c.ID)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	root := chain()
	if _, r := b.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": root[0].ID}); r.Error != nil {
		t.Fatalf("revoke on B: %+v", r.Error)
	}
	for _, h := range []*harness{a, b} {
		for _, c := range root {
			waitRefused(h, c)
		}
	}
	mid := chain()
	if _, r := a.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": mid[1].ID}); r.Error != nil {
		t.Fatalf("revoke middle: %+v", r.Error)
	}
	for _, h := range []*harness{a, b} {
		waitRefused(h, mid[1])
		waitRefused(h, mid[2])
		if r := h.invokeFirst("alice-dev-key", mid[0]); r.Error != nil {
			t.Errorf("the root died with its child: %+v", r.Error)
		}
	}
}

// TestRedisFaults kills, restarts, pauses and resumes Redis under two
// replicas: a revoked capability is never accepted, unknown state fails
// closed within the timeout, and the replicas recover on their own. The
// test Redis keeps nothing on disk, so a restart empties it; the replicas
// write their revocations back, and callers present tokens, since the
// index of issued capabilities is gone (production Redis runs with AOF).
func TestRedisFaults(t *testing.T) {
	srv := redistest.Start(t)
	start := replicaStarter(t, srv, 300*time.Millisecond, outageTimeout)
	a, b := start(), start()
	live, revoked := a.aliceQ1(), a.aliceQ1()
	if _, r := a.rpc("alice-dev-key", "a2a/capabilities/revoke", map[string]any{"capabilityId": revoked.ID}); r.Error != nil {
		t.Fatal(r.Error)
	}
	waitFor(t, func() bool { return b.invokeWithToken("alice-dev-key", revoked).Error != nil })

	srv.Kill()
	failedClosed := checkDuring(t, b, live, revoked, 1500*time.Millisecond)
	if !failedClosed {
		t.Error("with Redis dead past the staleness bound, the live capability was still accepted: state unknown must fail closed")
	}
	srv.Restart()
	waitFor(t, func() bool { return b.invokeWithToken("alice-dev-key", live).Error == nil })

	srv.Pause()
	checkDuring(t, b, live, revoked, 1500*time.Millisecond)
	srv.Resume()
	waitFor(t, func() bool { return b.invokeWithToken("alice-dev-key", live).Error == nil })
	if r := b.invokeWithToken("alice-dev-key", revoked); r.Error == nil {
		t.Fatal("the revoked capability came back to life after the outage")
	}
}

// checkDuring invokes both capabilities for d: the revoked one must never
// pass, and no call may hang past the timeout. It reports whether the live
// one was refused with revocation_unavailable at least once.
func checkDuring(t *testing.T, h *harness, live, revoked issued, d time.Duration) bool {
	t.Helper()
	var slowest time.Duration
	failedClosed := false
	for end := time.Now().Add(d); time.Now().Before(end); {
		start := time.Now()
		if r := h.invokeWithToken("alice-dev-key", revoked); r.Error == nil {
			t.Fatal("a revoked capability was accepted during a Redis outage")
		}
		r := h.invokeWithToken("alice-dev-key", live)
		if r.Error != nil {
			if r.Error.Code != -32049 {
				t.Fatalf("live capability refused with %d %v, want -32049", r.Error.Code, r.Error.Data["reason"])
			}
			failedClosed = true
		}
		slowest = max(slowest, time.Since(start))
	}
	t.Logf("slowest pair of invocations during the outage: %v", slowest)
	if slowest > 3*time.Second {
		t.Errorf("an invocation took %v: timeouts and the breaker must bound it", slowest)
	}
	return failedClosed
}

// TestIndexWriterCannotMint overwrites a capability's record in Redis: the
// index is not trusted with authority, so the forged token is refused, in
// the binary form records have and in the JSON form of earlier versions.
func TestIndexWriterCannotMint(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := replicas(t, srv, 2*time.Second)
	ctx := t.Context()
	tests := []struct {
		name  string
		forge func(c issued) error
	}{
		{"json form", func(c issued) error {
			return srv.Client.Set(ctx, "capgate:cap:"+c.ID, `{"id":"`+c.ID+`","token":"forged","expires":"2999-01-01T00:00:00Z"}`, time.Hour).Err()
		}},
		{"binary form", func(c issued) error {
			i, flip := strings.LastIndexByte(c.Token, '.')+10, byte('A') // a byte inside the signature
			if c.Token[i] == flip {
				flip = 'B'
			}
			forged, err := captoken.Pack(c.Token[:i] + string(flip) + c.Token[i+1:])
			if err != nil {
				return err
			}
			return capindex.NewRedis(srv.Client, "capgate:", time.Second, time.Now).Put(ctx, capindex.Record{
				CapabilityID: c.ID, Token: forged, Principal: "user:alice@example.com", Holder: "user:alice@example.com",
				Agent: "documents", Grant: "documents:read", Expires: time.Now().Add(time.Hour),
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := a.aliceQ1()
			if err := tc.forge(c); err != nil {
				t.Fatal(err)
			}
			wantCode(t, a.invokeFirst("alice-dev-key", c), -32041, "capability_invalid")
		})
	}
}
