package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Defaults of a Spec.
const (
	// DefaultSamplesPerSecond sizes each run's preallocated latency
	// buffers: room for this many requests per second over the duration,
	// shared among the connections (each gets at least minWorkerSamples).
	DefaultSamplesPerSecond = 200_000
	// MaxSamples caps a run's latency buffers (32 MiB) whatever the
	// duration; requests beyond it are counted as dropped samples.
	MaxSamples       = 4 << 20
	minWorkerSamples = 1024
	// runGrace is added to a run's warm-up and duration to form its
	// deadline, so a stuck target cannot stall the run for longer.
	runGrace = 5 * time.Second
)

// Spec is one load run: Conns keep-alive connections, each driven by its
// own goroutine in a closed loop (one request in flight per connection),
// sending Body to URL with Header, for Warmup (discarded) and then
// Duration (measured).
type Spec struct {
	URL      string
	Header   http.Header
	Body     []byte
	Conns    int
	Warmup   time.Duration
	Duration time.Duration
	// SamplesPerSecond sizes the latency buffers; zero means
	// DefaultSamplesPerSecond. The buffers never exceed MaxSamples in all
	// (or minWorkerSamples per connection). Samples beyond them are
	// counted as dropped, not kept.
	SamplesPerSecond int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Result is what one measured run gives.
type Result struct {
	// Requests is how many requests completed in the measured phase,
	// Errors how many of them failed (transport error, non-200, JSON-RPC
	// error or malformed answer).
	Requests, Errors int64
	// FirstError describes one failure, empty when there was none.
	FirstError string
	// Elapsed runs from the start of the measured phase until its last
	// request completed.
	Elapsed   time.Duration
	Latencies Latencies
	// Dropped counts latencies not recorded because a buffer was full.
	Dropped int64
	// AllocsPerRequest and BytesPerRequest are the process's heap
	// allocations during the measured phase divided by Requests: they
	// include the load generator and every in-process server.
	AllocsPerRequest, BytesPerRequest float64
	// CPUPerRequest is the process's CPU time (user and system) during the
	// measured phase divided by Requests: the load generator and every
	// in-process server, not a Redis server. On a machine shared with
	// other work it moves far less than req/s. Zero where the platform
	// does not say.
	CPUPerRequest time.Duration

	// samples are the recorded latencies, per connection, for merging
	// the slices of one step (mergeResults).
	samples [][]time.Duration
}

// RequestsPerSecond is Requests over Elapsed.
func (r Result) RequestsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

func (s Spec) validate() error {
	if _, err := url.Parse(s.URL); err != nil || s.URL == "" {
		return fmt.Errorf("%w: target URL %q", ErrInvalidOptions, s.URL)
	}
	if s.Conns < 1 || s.Duration <= 0 || s.Warmup < 0 || s.SamplesPerSecond < 0 {
		return fmt.Errorf("%w: conns %d, duration %v, warm-up %v, samples/s %d", ErrInvalidOptions,
			s.Conns, s.Duration, s.Warmup, s.SamplesPerSecond)
	}
	return nil
}

// Drive runs s and returns the measured phase's result. An error means
// the run itself could not happen (bad spec, cancelled context); failed
// requests are counted in the Result, not returned.
func Drive(ctx context.Context, s Spec) (Result, error) {
	if err := s.validate(); err != nil {
		return Result{}, err
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	u, _ := url.Parse(s.URL)
	ctx, cancel := context.WithTimeout(ctx, s.Warmup+s.Duration+runGrace)
	defer cancel()
	tr := driverTransport(s.Conns)
	defer tr.CloseIdleConnections()
	workers := newWorkers(s, u, tr)
	if s.Warmup > 0 {
		runPhase(ctx, workers, s.Now().Add(s.Warmup), false)
		for _, w := range workers {
			w.reset()
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := processCPU()
	start := s.Now()
	runPhase(ctx, workers, start.Add(s.Duration), true)
	elapsed := s.Now().Sub(start)
	cpu = processCPU() - cpu
	runtime.ReadMemStats(&after)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("loadtest: run against %s: %w", s.URL, err)
	}
	r := collect(workers, elapsed, after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc)
	if r.Requests > 0 {
		r.CPUPerRequest = cpu / time.Duration(r.Requests)
	}
	return r, nil
}

// driverTransport is the load generator's one shared transport: exactly
// conns connections to the target, kept alive.
func driverTransport(conns int) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

func runPhase(ctx context.Context, workers []*worker, deadline time.Time, record bool) {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { w.loop(ctx, deadline, record) })
	}
	wg.Wait()
}

// collect merges the workers' counts and latencies; mallocs and bytes are
// the process's allocations during the measured phase.
func collect(workers []*worker, elapsed time.Duration, mallocs, bytes uint64) Result {
	r := Result{Elapsed: elapsed}
	samples := make([][]time.Duration, 0, len(workers))
	for _, w := range workers {
		r.Requests += w.requests
		r.Errors += w.errors
		r.Dropped += w.dropped
		if r.FirstError == "" && w.firstErr != nil {
			r.FirstError = w.firstErr.Error()
		}
		samples = append(samples, w.latencies)
	}
	r.Latencies = Summarize(samples)
	for _, s := range samples {
		// Only what was recorded: the buffers are sized for the run's
		// whole duration, and a step's slices are kept until the last
		// round.
		r.samples = append(r.samples, slices.Clone(s))
	}
	if r.Requests > 0 {
		r.AllocsPerRequest = float64(mallocs) / float64(r.Requests)
		r.BytesPerRequest = float64(bytes) / float64(r.Requests)
	}
	return r
}

// worker is one connection's closed loop.
type worker struct {
	url       *url.URL
	header    http.Header
	body      []byte
	client    *http.Client
	now       func() time.Time
	buf       bytes.Buffer
	latencies []time.Duration

	requests, errors, dropped int64
	firstErr                  error
}

func newWorkers(s Spec, u *url.URL, tr *http.Transport) []*worker {
	rate := s.SamplesPerSecond
	if rate == 0 {
		rate = DefaultSamplesPerSecond
	}
	total := min(float64(rate)*s.Duration.Seconds(), MaxSamples)
	per := max(int(total)/s.Conns, minWorkerSamples)
	client := &http.Client{Transport: tr}
	ws := make([]*worker, s.Conns)
	for i := range ws {
		ws[i] = &worker{url: u, header: s.Header, body: s.Body, client: client, now: s.Now,
			latencies: make([]time.Duration, 0, per)}
		ws[i].buf.Grow(4096)
	}
	return ws
}

func (w *worker) reset() {
	w.requests, w.errors, w.dropped, w.firstErr = 0, 0, 0, nil
	w.latencies = w.latencies[:0]
}

func (w *worker) loop(ctx context.Context, deadline time.Time, record bool) {
	done := ctx.Done()
	for {
		select {
		case <-done:
			return
		default:
		}
		start := w.now()
		if !start.Before(deadline) {
			return
		}
		err := w.once(ctx)
		w.count(w.now().Sub(start), err, record)
	}
}

// count records one request: its error, and its latency when recording,
// in the preallocated buffer only (a full buffer counts it as dropped, so
// the measured phase never allocates for bookkeeping).
func (w *worker) count(d time.Duration, err error, record bool) {
	w.requests++
	if err != nil {
		w.errors++
		if w.firstErr == nil {
			w.firstErr = err
		}
	}
	switch {
	case !record:
	case len(w.latencies) < cap(w.latencies):
		w.latencies = append(w.latencies, d)
	default:
		w.dropped++
	}
}

// once sends one request and reads and checks the whole answer.
func (w *worker) once(ctx context.Context) error {
	req := (&http.Request{
		Method: http.MethodPost, URL: w.url, Header: w.header, Host: w.url.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Body: io.NopCloser(bytes.NewReader(w.body)), ContentLength: int64(len(w.body)),
	}).WithContext(ctx)
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("loadtest: reading the answer: %w", err)
	}
	return CheckResponse(resp.StatusCode, w.buf.Bytes())
}
