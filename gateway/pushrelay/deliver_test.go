package pushrelay_test

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/pushrelay"
)

// outcomes records what each push came to.
type outcomes struct {
	mu  sync.Mutex
	got []string
	ch  chan string
}

func newOutcomes() *outcomes { return &outcomes{ch: make(chan string, 16)} }

func (o *outcomes) report(_, outcome string) { o.ch <- outcome }

// next waits for the next outcome; the deadline is a hang guard.
func (o *outcomes) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-o.ch:
		return s
	case <-time.After(20 * time.Second):
		t.Fatal("no outcome")
		return ""
	}
}

// immediate is an injected clock whose every wait is over at once; it
// counts the waits.
type immediate struct{ waits atomic.Int64 }

func (c *immediate) after(time.Duration) <-chan time.Time {
	c.waits.Add(1)
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

func tlsReceiver(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int64, *x509.CertPool) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if r.Header.Get("X-A2A-Notification-Token") != "tok" || r.Header.Get("Authorization") != "Bearer cred" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(statuses[min(i, len(statuses)-1)])
	}))
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return srv, &n, roots
}

func TestDeliverRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int
		want     string
		calls    int64
	}{
		{"first time", []int{200}, 3, pushrelay.OutcomeDelivered, 1},
		{"after two failures", []int{503, 429, 204}, 3, pushrelay.OutcomeDelivered, 3},
		{"every attempt fails", []int{500}, 3, pushrelay.OutcomeFailed, 3},
		{"refused, not retried", []int{404}, 3, pushrelay.OutcomeFailed, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls, roots := tlsReceiver(t, tc.statuses...)
			clock, out := &immediate{}, newOutcomes()
			d := pushrelay.NewDeliverer(pushrelay.DeliverOptions{Targets: pushrelay.Targets{AllowPrivate: true}, RootCAs: roots,
				Attempts: tc.attempts, After: clock.after, OnOutcome: out.report})
			defer d.Close()
			if !d.Enqueue(pushrelay.Push{Agent: "a", Body: []byte(`{}`), Target: pushrelay.Target{URL: srv.URL, Token: "tok",
				Auth: &pushrelay.Auth{Schemes: []string{"Bearer"}, Credentials: "cred"}}}) {
				t.Fatal("not queued")
			}
			if got := out.next(t); got != tc.want || calls.Load() != tc.calls || clock.waits.Load() != tc.calls-1 {
				t.Errorf("outcome %s after %d calls and %d waits; want %s after %d", got, calls.Load(), clock.waits.Load(), tc.want, tc.calls)
			}
		})
	}
}

// TestDeliverDialCheck: a target that passed the set-time check but is
// dialled on a refused address (here loopback, as a rebound name would
// be) is never reached, and not retried.
func TestDeliverDialCheck(t *testing.T) {
	srv, calls, roots := tlsReceiver(t, 200)
	clock, out := &immediate{}, newOutcomes()
	d := pushrelay.NewDeliverer(pushrelay.DeliverOptions{RootCAs: roots, After: clock.after, OnOutcome: out.report})
	defer d.Close()
	d.Enqueue(pushrelay.Push{Agent: "a", Body: []byte(`{}`), Target: pushrelay.Target{URL: srv.URL}})
	if got := out.next(t); got != pushrelay.OutcomeFailed || calls.Load() != 0 || clock.waits.Load() != 0 {
		t.Errorf("outcome %s, %d calls, %d waits", got, calls.Load(), clock.waits.Load())
	}
}

// TestDeliverBounded: the queue holds what it may and refuses the rest;
// Close stops the workers, even one waiting to retry, and reports every
// push it dropped.
func TestDeliverBounded(t *testing.T) {
	block, waiting := make(chan time.Time), make(chan struct{}, 1)
	srv, _, roots := tlsReceiver(t, 503)
	out := newOutcomes()
	d := pushrelay.NewDeliverer(pushrelay.DeliverOptions{Targets: pushrelay.Targets{AllowPrivate: true}, RootCAs: roots,
		Workers: 1, Queue: 2, Attempts: 5, OnOutcome: out.report,
		After: func(time.Duration) <-chan time.Time {
			select { // the test waits for the first wait alone; a later one must not block the worker
			case waiting <- struct{}{}:
			default:
			}
			return block
		}})
	p := pushrelay.Push{Agent: "a", Body: []byte(`{}`), Target: pushrelay.Target{URL: srv.URL, Token: "tok",
		Auth: &pushrelay.Auth{Schemes: []string{"Bearer"}, Credentials: "cred"}}}
	d.Enqueue(p)
	<-waiting // the one worker waits to retry the first push
	queued := 0
	for range 10 {
		if d.Enqueue(p) {
			queued++
		}
	}
	if queued != 2 {
		t.Errorf("%d of 10 queued with a queue of 2 and its one worker busy", queued)
	}
	d.Close()
	for i := range 3 {
		if got := out.next(t); got != pushrelay.OutcomeClosed {
			t.Errorf("push %d ended %s", i, got)
		}
	}
	if d.Enqueue(p) {
		t.Error("queued after Close")
	}
}

// TestDeliverCloseRacingEnqueue: every push Enqueue accepted ends with an
// outcome, however Enqueue and Close interleave: none is queued after
// Close has drained the queue.
func TestDeliverCloseRacingEnqueue(t *testing.T) {
	srv, _, roots := tlsReceiver(t, 200)
	var reported atomic.Int64
	d := pushrelay.NewDeliverer(pushrelay.DeliverOptions{Targets: pushrelay.Targets{AllowPrivate: true}, RootCAs: roots,
		Queue: 64, OnOutcome: func(string, string) { reported.Add(1) }})
	p := pushrelay.Push{Agent: "a", Body: []byte(`{}`), Target: pushrelay.Target{URL: srv.URL, Token: "tok",
		Auth: &pushrelay.Auth{Schemes: []string{"Bearer"}, Credentials: "cred"}}}
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if d.Enqueue(p) {
					accepted.Add(1)
				}
			}
		}()
	}
	d.Close()
	wg.Wait()
	if a, r := accepted.Load(), reported.Load(); a != r {
		t.Errorf("%d pushes accepted, %d ended with an outcome", a, r)
	}
}
