package loadtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func quickSpec(url string) Spec {
	return Spec{URL: url, Header: RequestHeader(), Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke"}`),
		Conns: 2, Warmup: 20 * time.Millisecond, Duration: 100 * time.Millisecond}
}

func TestDriveCountsAndMeasures(t *testing.T) {
	u := NewUpstream()
	srv := httptest.NewServer(u)
	defer srv.Close()
	res, err := Drive(context.Background(), quickSpec(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != 0 || res.FirstError != "" {
		t.Fatalf("result %+v: want requests and no errors", res)
	}
	if res.Latencies.Samples != int(res.Requests) || res.Dropped != 0 {
		t.Errorf("%d samples and %d dropped for %d requests: every request must be recorded", res.Latencies.Samples, res.Dropped, res.Requests)
	}
	if got := u.Calls(); got < uint64(res.Requests) {
		t.Errorf("upstream saw %d calls for %d requests", got, res.Requests)
	}
	l := res.Latencies
	if l.P50 <= 0 || l.P50 > l.P99 || l.P99 > l.P999 || l.P999 > l.Max {
		t.Errorf("percentiles out of order: %+v", l)
	}
	if res.AllocsPerRequest <= 0 || res.BytesPerRequest <= 0 || res.RequestsPerSecond() <= 0 {
		t.Errorf("allocs/req %v, B/req %v, req/s %v: want positive", res.AllocsPerRequest, res.BytesPerRequest, res.RequestsPerSecond())
	}
}

// Every kind of bad answer is an error, never a fast success.
func TestDriveCountsFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"HTTP 500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, "HTTP status: 500"},
		{"HTTP 401", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }, "HTTP status: 401"},
		{"JSON-RPC error", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32043,"message":"capability revoked"}}`)
		}, "capability revoked"},
		{"empty 200", func(w http.ResponseWriter, r *http.Request) {}, "malformed"},
		{"connection dropped", func(w http.ResponseWriter, r *http.Request) {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			res, err := Drive(context.Background(), quickSpec(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors != res.Requests || !strings.Contains(res.FirstError, tt.want) {
				t.Fatalf("%d requests, %d errors, first %q: want every request failed with %q", res.Requests, res.Errors, res.FirstError, tt.want)
			}
		})
	}
}

// The warm-up is driven but not counted.
func TestDriveDiscardsWarmup(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 3 {
			w.WriteHeader(503) // only the first calls, all in the warm-up
			return
		}
		io.WriteString(w, `{"id":1,"result":{}}`)
	}))
	defer srv.Close()
	s := quickSpec(srv.URL)
	s.Conns, s.Warmup = 1, 50*time.Millisecond
	res, err := Drive(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 || int64(calls.Load()) <= res.Requests {
		t.Fatalf("%d errors, %d calls, %d requests: warm-up calls must not be counted", res.Errors, calls.Load(), res.Requests)
	}
}

// A target that hangs cannot stall a run past its deadline: a cancelled
// context ends the run with an error.
func TestDriveIsBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(150 * time.Millisecond); cancel() }()
	s := quickSpec(srv.URL)
	s.Duration = time.Hour
	if _, err := Drive(ctx, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drive = %v, want context.Canceled", err)
	}
}

func TestDriveRefusesBadSpecs(t *testing.T) {
	good := quickSpec("http://127.0.0.1:1/")
	tests := []struct {
		name string
		mod  func(*Spec)
	}{
		{"no URL", func(s *Spec) { s.URL = "" }},
		{"bad URL", func(s *Spec) { s.URL = "http://[::1" }},
		{"zero conns", func(s *Spec) { s.Conns = 0 }},
		{"zero duration", func(s *Spec) { s.Duration = 0 }},
		{"negative warm-up", func(s *Spec) { s.Warmup = -time.Second }},
		{"negative samples", func(s *Spec) { s.SamplesPerSecond = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.mod(&s)
			if _, err := Drive(context.Background(), s); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("Drive = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

// Latencies beyond the preallocated buffers are counted, not recorded:
// recording never allocates during the measured phase.
func TestWorkerDropsBeyondBuffer(t *testing.T) {
	w := &worker{latencies: make([]time.Duration, 0, 2)}
	w.count(time.Second, nil, false) // warm-up: counted, not recorded
	w.reset()
	for i := range 5 {
		w.count(time.Duration(i+1)*time.Millisecond, nil, true)
	}
	w.count(time.Hour, ErrStatus, true)
	if n := testing.AllocsPerRun(100, func() { w.count(time.Millisecond, nil, true) }); n != 0 {
		t.Errorf("count allocates %.0f times on a full buffer, want 0", n)
	}
	res := collect([]*worker{w}, time.Second, 0, 0)
	if res.Latencies.Samples != 2 || res.Requests != 107 || res.Dropped != 105 || res.Errors != 1 || res.FirstError != ErrStatus.Error() {
		t.Fatalf("result %+v: want 2 samples, 107 requests (AllocsPerRun runs once more), 105 dropped, 1 error", res)
	}
}

// A long run does not preallocate latency buffers in proportion to its
// duration: they stay within MaxSamples.
func TestLatencyBuffersAreCapped(t *testing.T) {
	for _, conns := range []int{1, 64, 4096} {
		s := quickSpec("http://127.0.0.1:1/")
		s.Conns, s.Duration = conns, 24*time.Hour
		total := 0
		for _, w := range newWorkers(s, nil, nil) {
			total += cap(w.latencies)
		}
		if total > MaxSamples {
			t.Errorf("%d conns: %d samples preallocated, want at most %d", conns, total, MaxSamples)
		}
	}
}
