package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation"
)

// TestFromConfig: no console section, no console; a session key shorter
// than 32 bytes is refused; two consoles built from one config with the
// shared session key (two replicas) accept each other's sessions; the
// dev-key form is there because dev keys are configured, and the
// configured approver enters.
func TestFromConfig(t *testing.T) {
	au, err := authn.New(context.Background(), nil, []authn.DevKey{
		{Hash: authn.HashKey(approverKey), Principal: "user:sec@example.com"},
	}, authn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	revs := revocation.NewMemory(revocation.MemoryOptions{})
	deps := console.Deps{Authenticator: au, Revocations: revs, Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: time.Now}}
	cfg := &config.Config{AdminAccess: config.AdminAccess{Groups: []string{"capgate-admins"}},
		DevKeys: []authn.DevKey{{Principal: "user:admin@example.com"}}}
	if c, err := console.FromConfig(cfg, deps); c != nil || err != nil {
		t.Fatalf("without a console section: %v %v", c, err)
	}
	cfg.Console = &config.Console{SessionKeyEnv: "CONSOLE_KEY", Approvers: config.AdminAccess{Principals: []string{"user:sec@example.com"}}}
	env := map[string]string{"CONSOLE_KEY": "too short"}
	deps.Getenv = func(k string) string { return env[k] }
	if _, err := console.FromConfig(cfg, deps); err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
		t.Fatalf("a short session key: %v", err)
	}
	env["CONSOLE_KEY"] = strings.Repeat("k", 32)
	var replicas [2]*httptest.Server
	for i := range replicas {
		c, err := console.FromConfig(cfg, deps)
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = httptest.NewServer(c.Handler())
		t.Cleanup(replicas[i].Close)
	}
	b := newBrowser(t, &fixture{srv: replicas[0]})
	if code, _ := b.signIn(approverKey); code != http.StatusOK {
		t.Fatalf("sign-in on the first replica: %d", code)
	}
	b.url = replicas[1].URL // the jar sends the session cookie to any port of 127.0.0.1
	if code, page := b.get("/console/approvals"); code != http.StatusOK || !strings.Contains(page, "No approval store is configured") {
		t.Fatalf("the second replica does not accept the session: %d\n%s", code, page)
	}
}
