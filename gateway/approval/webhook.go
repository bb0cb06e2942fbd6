package approval

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/capgate/capgate/gateway/platform"
)

// Webhook headers. The signature is "sha256=" and the hex HMAC-SHA256,
// keyed with the shared secret, of the timestamp header's value, a dot
// and the raw body; a receiver recomputes it, compares in constant time
// and refuses old timestamps, so a captured delivery cannot be replayed
// later.
const (
	HeaderSignature = "X-Capgate-Signature"
	HeaderTimestamp = "X-Capgate-Timestamp"
)

// Webhook limits.
const (
	defaultAttempts    = 5
	maxAttempts        = 10
	defaultBackoff     = 500 * time.Millisecond
	maxBackoff         = 30 * time.Second
	attemptTimeout     = 10 * time.Second
	maxInFlight        = 32
	minWebhookSecretLn = 16
)

// Notification is the body a webhook receives.
type Notification struct {
	// Event is approval.requested.
	Event string `json:"event"`
	// Request is the waiting request, without real resource ids.
	Request Request `json:"request"`
}

// WebhookOptions are a Webhook's collaborators.
type WebhookOptions struct {
	// Client sends the requests; nil means a client with no redirects.
	Client *http.Client
	// Runtime's Getenv reads the secret; its clock and logger serve the
	// deliveries.
	platform.Runtime
	// Backoff is the first retry's delay, doubled each time; 0 means
	// 500ms.
	Backoff time.Duration
	// ConsoleURL is the console's base address as approvers' browsers
	// reach it (console.public_url); the chat formats link to the request
	// there. Empty: they say how to decide with the CLI instead.
	ConsoleURL string
}

// Webhook posts signed notifications, retrying with exponential backoff.
// Deliveries run in the background, at most 32 at a time; when that many
// are under way a new one is dropped and logged, never queued without
// bound.
type Webhook struct {
	url      string
	format   string
	secret   []byte
	attempts int
	opts     WebhookOptions
	slots    chan struct{}
	wg       sync.WaitGroup
}

var _ Notifier = (*Webhook)(nil)

// NewWebhook validates cfg and reads its secret.
func NewWebhook(cfg WebhookConfig, opts WebhookOptions) (*Webhook, error) {
	if err := errors.Join(cfg.check()...); err != nil {
		return nil, err
	}
	secret := ""
	if cfg.SecretEnv != "" && opts.Getenv != nil {
		secret = opts.Getenv(cfg.SecretEnv)
	}
	if (cfg.SecretEnv != "" || cfg.format() == FormatGeneric) && len(secret) < minWebhookSecretLn {
		return nil, &ConfigError{Field: "webhook.secret_env", Msg: fmt.Sprintf("must name an environment variable holding at least %d bytes", minWebhookSecretLn)}
	}
	w := &Webhook{url: cfg.URL, secret: []byte(secret), format: cfg.format(), attempts: cfg.MaxAttempts, opts: opts,
		slots: make(chan struct{}, maxInFlight)}
	if w.attempts == 0 {
		w.attempts = defaultAttempts
	}
	if w.opts.Client == nil {
		w.opts.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if w.opts.Logger == nil {
		w.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if w.opts.Now == nil {
		w.opts.Now = time.Now
	}
	if w.opts.Backoff <= 0 {
		w.opts.Backoff = defaultBackoff
	}
	return w, nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// Notify delivers r in the background.
func (w *Webhook) Notify(ctx context.Context, r Request) {
	body, err := w.body(r)
	if err != nil {
		w.opts.Logger.ErrorContext(ctx, "approval webhook: encoding", "error", err)
		return
	}
	select {
	case w.slots <- struct{}{}:
	default:
		w.opts.Logger.WarnContext(ctx, "approval webhook: too many deliveries under way; notification dropped", "approval_id", r.ID)
		return
	}
	w.wg.Add(1)
	go func() {
		defer func() { <-w.slots; w.wg.Done() }()
		if err := w.deliver(context.WithoutCancel(ctx), body); err != nil {
			w.opts.Logger.WarnContext(ctx, "approval webhook: notification not delivered", "approval_id", r.ID, "error", err)
		}
	}()
}

// Close waits for the deliveries under way.
func (w *Webhook) Close() error {
	w.wg.Wait()
	return nil
}

// deliver posts body until it is accepted (2xx), refused for good (4xx
// other than 408 and 429) or out of attempts.
func (w *Webhook) deliver(ctx context.Context, body []byte) error {
	delay := w.opts.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		var retry bool
		if retry, err = w.post(ctx, body); err == nil || !retry || attempt == w.attempts {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, maxBackoff)
	}
}

func (w *Webhook) post(ctx context.Context, body []byte) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	ts := strconv.FormatInt(w.opts.Now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	if len(w.secret) > 0 {
		req.Header.Set(HeaderTimestamp, ts)
		req.Header.Set(HeaderSignature, Sign(w.secret, ts, body))
	}
	resp, err := w.opts.Client.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		// Not the URL: a chat tool's webhook URL is its secret.
		return true, fmt.Errorf("approval webhook: %s: %w", ue.Op, ue.Err)
	}
	if err != nil {
		return true, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("approval webhook: status %d", resp.StatusCode)
	}
	return false, fmt.Errorf("approval webhook: refused with status %d", resp.StatusCode)
}

// Sign returns the signature header value for a delivery's timestamp and
// body.
func Sign(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a delivery's signature in constant time; receivers written
// in Go can use it.
func Verify(secret []byte, timestamp string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature))
}
