package authn

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn/oidctest"
	"github.com/capgate/capgate/gateway/platform"
)

const testAudience = "capgate-test"

// fakeClock is an injected clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Unix(1_750_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// quickstartKeys are the dev keys of the quickstart world.
func quickstartKeys() []DevKey {
	return []DevKey{
		{Hash: HashKey("alice-dev-key"), Principal: "user:alice@example.com", Groups: []string{"finance"}},
		{Hash: HashKey("bob-dev-key"), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
		{Hash: HashKey("carol-dev-key"), Principal: "user:carol@example.com", Groups: []string{"hr", "editors"}},
		{Hash: HashKey("summarizer-dev-key"), Principal: "agent:summarizer"},
	}
}

type fixture struct {
	iss   *oidctest.Issuer
	clock *fakeClock
	a     *Authenticator
}

// newFixture starts one test issuer and an Authenticator trusting it (after
// mutate) plus the quickstart dev keys.
func newFixture(t testing.TB, mutate func(*IssuerConfig)) *fixture {
	t.Helper()
	f := &fixture{iss: oidctest.New(t), clock: newClock()}
	cfg := IssuerConfig{Issuer: f.iss.URL(), Audience: testAudience}
	if mutate != nil {
		mutate(&cfg)
	}
	f.a = newAuthenticator(t, f.clock, []IssuerConfig{cfg})
	return f
}

func newAuthenticator(t testing.TB, clock *fakeClock, issuers []IssuerConfig) *Authenticator {
	t.Helper()
	a, err := New(context.Background(), issuers, quickstartKeys(), Options{Runtime: platform.Runtime{Now: clock.Now}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

// userClaims returns valid claims for alice with groups.
func (f *fixture) userClaims() map[string]any {
	c := f.iss.Claims(testAudience, f.clock.Now())
	c["email"] = "alice@example.com"
	c["email_verified"] = true
	c["groups"] = []string{"finance", "eng"}
	return c
}

func with(c map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(c, k)
			continue
		}
		c[k] = kv[i+1]
	}
	return c
}
