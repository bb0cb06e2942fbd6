package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/platform"
)

const hookSecret = "0123456789abcdef-webhook"

func env(k string) string {
	if k == "HOOK_SECRET" {
		return hookSecret
	}
	return ""
}

// receiver is an httptest server that fails the first failures deliveries
// with 503 and records the accepted one.
type receiver struct {
	mu       sync.Mutex
	failures int
	calls    int
	body     []byte
	ts, sig  string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.calls++
	if rc.calls <= rc.failures {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc.body, rc.ts, rc.sig = b, r.Header.Get(approval.HeaderTimestamp), r.Header.Get(approval.HeaderSignature)
}

func TestWebhookSignedAndRetried(t *testing.T) {
	rc := &receiver{failures: 2}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	hook, err := approval.NewWebhook(approval.WebhookConfig{URL: srv.URL, SecretEnv: "HOOK_SECRET", MaxAttempts: 3},
		approval.WebhookOptions{Runtime: platform.Runtime{Getenv: env}, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	d := approval.NewDesk(approval.NewMemory(time.Now), approval.Options{Notifier: hook})
	r, err := d.Create(context.Background(), sample())
	if err != nil {
		t.Fatal(err)
	}
	_ = hook.Close()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.calls != 3 {
		t.Fatalf("%d deliveries, want 3 (two refused, one accepted)", rc.calls)
	}
	if !approval.Verify([]byte(hookSecret), rc.ts, rc.body, rc.sig) {
		t.Fatalf("signature %q does not verify", rc.sig)
	}
	for _, forged := range [][]byte{append([]byte(nil), rc.body[1:]...), []byte(`{"event":"approval.requested"}`)} {
		if approval.Verify([]byte(hookSecret), rc.ts, forged, rc.sig) {
			t.Errorf("a changed body verifies")
		}
	}
	if approval.Verify([]byte("another-secret-of-16+"), rc.ts, rc.body, rc.sig) || approval.Verify([]byte(hookSecret), "1", rc.body, rc.sig) {
		t.Errorf("another secret or timestamp verifies")
	}
	var n approval.Notification
	if err := json.Unmarshal(rc.body, &n); err != nil || n.Event != approval.EventRequested || n.Request.ID != r.ID {
		t.Fatalf("body %s: %v", rc.body, err)
	}
	if id := n.Request.Grants[0].Resources[0].ID; id != "" {
		t.Errorf("the notification leaks the real resource id %q", id)
	}
}

func TestWebhookBounded(t *testing.T) {
	rc := &receiver{failures: 100}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	hook, err := approval.NewWebhook(approval.WebhookConfig{URL: srv.URL, SecretEnv: "HOOK_SECRET", MaxAttempts: 4},
		approval.WebhookOptions{Runtime: platform.Runtime{Getenv: env}, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hook.Notify(context.Background(), sample())
	_ = hook.Close()
	if rc.calls != 4 {
		t.Fatalf("%d deliveries, want exactly max_attempts (4)", rc.calls)
	}
}

func TestWebhookConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  approval.WebhookConfig
	}{
		{"plain http elsewhere", approval.WebhookConfig{URL: "http://hooks.example.com/x", SecretEnv: "HOOK_SECRET"}},
		{"no url", approval.WebhookConfig{SecretEnv: "HOOK_SECRET"}},
		{"no secret", approval.WebhookConfig{URL: "https://hooks.example.com/x", SecretEnv: "NOPE"}},
		{"too many attempts", approval.WebhookConfig{URL: "https://hooks.example.com/x", SecretEnv: "HOOK_SECRET", MaxAttempts: 99}},
		{"unknown format", approval.WebhookConfig{URL: "https://hooks.example.com/x", SecretEnv: "HOOK_SECRET", Format: "discord"}},
		{"format in capitals", approval.WebhookConfig{URL: "https://hooks.example.com/x", SecretEnv: "HOOK_SECRET", Format: "Slack"}},
		{"generic without a secret", approval.WebhookConfig{URL: "https://hooks.example.com/x", Format: "generic"}},
		{"slack with a secret too short", approval.WebhookConfig{URL: "https://hooks.example.com/x", Format: "slack", SecretEnv: "NOPE"}},
	}
	for _, tt := range tests {
		if _, err := approval.NewWebhook(tt.cfg, approval.WebhookOptions{Runtime: platform.Runtime{Getenv: env}}); !errors.Is(err, approval.ErrWebhookConfig) {
			t.Errorf("%s: err = %v, want ErrWebhookConfig", tt.name, err)
		}
	}
}
