package pushrelay

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Delivery outcomes, as OnOutcome reports them.
const (
	OutcomeDelivered = "delivered"
	OutcomeFailed    = "failed"
	OutcomeClosed    = "closed"
)

// Delivery defaults and bounds.
const (
	DefaultAttempts = 5
	MaxAttempts     = 10
	DefaultQueue    = 1000
	DefaultWorkers  = 4
	DefaultBackoff  = 500 * time.Millisecond
	maxBackoff      = 30 * time.Second
	attemptTimeout  = 10 * time.Second
)

// Push is one notification to deliver.
type Push struct {
	// Agent names the agent it came from, for logs and metrics.
	Agent string
	// Target is the caller's receiver.
	Target Target
	// Body is what the receiver gets, as the answer pipeline left it.
	Body []byte
}

// DeliverOptions configure a Deliverer.
type DeliverOptions struct {
	// Targets restrict the addresses a delivery dials.
	Targets Targets
	// RootCAs, when set, are the only roots a receiver's certificate may
	// chain to (a test's receiver); nil means the system's.
	RootCAs *x509.CertPool
	// Workers, Queue and Attempts bound the deliveries; zero means
	// DefaultWorkers, DefaultQueue and DefaultAttempts.
	Workers, Queue, Attempts int
	// Backoff is the first retry's delay, doubled each time up to 30s;
	// zero means DefaultBackoff.
	Backoff time.Duration
	// After waits for a retry's delay (time.After when nil): tests inject
	// their clock here.
	After func(time.Duration) <-chan time.Time
	// Logger receives delivery failures; nil discards them.
	Logger *slog.Logger
	// OnOutcome, when set, is told how each push ended.
	OnOutcome func(agent, outcome string)
}

// Deliverer posts pushes to callers' receivers in the background.
type Deliverer struct {
	opts   DeliverOptions
	client *http.Client
	queue  chan Push
	stop   chan struct{}
	// ctx ends with Close, cancelling an attempt under way.
	ctx    context.Context
	cancel context.CancelFunc
	// mu orders Enqueue before Close: once closed is set (under the
	// write lock), no push enters the queue that Close drains.
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

// NewDeliverer starts opts.Workers workers on a queue of opts.Queue.
func NewDeliverer(opts DeliverOptions) *Deliverer {
	opts = opts.withDefaults()
	d := &Deliverer{opts: opts, client: newClient(opts), queue: make(chan Push, opts.Queue), stop: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	for range opts.Workers {
		d.wg.Add(1)
		go d.work()
	}
	return d
}

func (o DeliverOptions) withDefaults() DeliverOptions {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	o.Attempts = min(o.Attempts, MaxAttempts)
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.OnOutcome == nil {
		o.OnOutcome = func(string, string) {}
	}
	return o
}

// newClient dials only addresses the targets allow, through no proxy,
// and follows no redirect.
func newClient(o DeliverOptions) *http.Client {
	dialer := &net.Dialer{Timeout: attemptTimeout, Control: o.Targets.Control}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: attemptTimeout,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second, ForceAttemptHTTP2: true,
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs}}
	return &http.Client{Transport: tr, Timeout: attemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Enqueue queues p for delivery. It reports false, and queues nothing,
// when the queue is full or the deliverer closed: the caller says so.
func (d *Deliverer) Enqueue(p Push) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return false
	}
	select {
	case d.queue <- p:
		return true
	default:
		d.opts.Logger.Warn("push relay queue full; push dropped", "agent", p.Agent)
		return false
	}
}

// Close stops the workers (an attempt under way is cancelled), waits for
// them to return, and drops what is still queued, reporting each push
// OutcomeClosed. It is safe to call more than once.
func (d *Deliverer) Close() error {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.stop)
		d.cancel()
	}
	d.mu.Unlock()
	d.wg.Wait()
	for {
		select {
		case p := <-d.queue:
			d.opts.OnOutcome(p.Agent, OutcomeClosed)
		default:
			return nil
		}
	}
}

func (d *Deliverer) work() {
	defer d.wg.Done()
	for {
		select {
		case <-d.stop:
			return
		case p := <-d.queue:
			d.opts.OnOutcome(p.Agent, d.deliver(p))
		}
	}
}

// deliver tries p up to Attempts times, backing off between attempts.
func (d *Deliverer) deliver(p Push) string {
	wait := d.opts.Backoff
	for attempt := 1; ; attempt++ {
		retry, err := d.attempt(p)
		if err == nil {
			return OutcomeDelivered
		}
		if !retry || attempt >= d.opts.Attempts {
			d.opts.Logger.Warn("push delivery failed; dropped", "agent", p.Agent, "attempts", attempt, "error", err)
			return OutcomeFailed
		}
		select {
		case <-d.stop:
			return OutcomeClosed
		case <-d.opts.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// attempt posts p once; retry says whether a failure may be retried.
func (d *Deliverer) attempt(p Push) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(d.ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Target.URL, bytes.NewReader(p.Body))
	if err != nil {
		return false, err
	}
	setCallerAuth(req.Header, p.Target)
	resp, err := d.client.Do(req)
	if err != nil {
		return !isTargetErr(err), err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return false, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return true, &statusError{c}
	default:
		return false, &statusError{c}
	}
}

// setCallerAuth sets the content type and the caller's credentials.
func setCallerAuth(h http.Header, t Target) {
	h.Set("Content-Type", "application/json")
	if t.Token != "" {
		h.Set("X-A2A-Notification-Token", t.Token)
	}
	if t.Auth == nil || t.Auth.Credentials == "" {
		return
	}
	for _, s := range t.Auth.Schemes {
		switch strings.ToLower(s) {
		case "bearer":
			h.Set("Authorization", "Bearer "+t.Auth.Credentials)
			return
		case "basic":
			h.Set("Authorization", "Basic "+t.Auth.Credentials)
			return
		}
	}
}

type statusError struct{ code int }

func (e *statusError) Error() string { return "receiver answered " + http.StatusText(e.code) }

func isTargetErr(err error) bool { return errors.Is(err, ErrTarget) }
