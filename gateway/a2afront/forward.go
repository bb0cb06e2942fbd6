package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/gateway/proxy"
)

// Every request that leaves the front for an agent is built by
// upstreamRequest and sent by hop, through the agent's proxy: single
// calls, batch elements and the resolution hook alike. The proxy strips
// the caller's credentials and capability headers and sets the ones the
// gateway vouches for, so there is one header hygiene for every path.

// upstreamRequest is the request that carries one allowed call upstream:
// a shallow copy of the caller's request on ctx, with its own header map,
// the decided body, the call's id (for the proxy's error answer) and the
// capability context the gateway vouches for. The proxy clones it again
// before rewriting anything, and header values are only ever replaced,
// never changed in place, so sharing the caller's value slices is safe.
func upstreamRequest(ctx context.Context, r *http.Request, id json.RawMessage, out outcome) *http.Request {
	ctx = withRequestID(ctx, id)
	if out.cc != nil {
		ctx = proxy.WithContext(ctx, *out.cc)
	}
	req := r.WithContext(ctx)
	req.Header = make(http.Header, len(r.Header)+2)
	for k, v := range r.Header {
		req.Header[k] = v
	}
	req.Method = http.MethodPost
	req.Body = http.NoBody
	if len(out.forward) > 0 {
		req.Body = proxy.Body(out.forward)
	}
	req.ContentLength = int64(len(out.forward))
	req.Header.Set("Content-Length", strconv.Itoa(len(out.forward)))
	req.Header.Set("Content-Type", "application/json")
	// The answer processors read the answer: the transport asks for and
	// undoes any compression itself, never the caller's encodings.
	req.Header.Del("Accept-Encoding")
	return req
}

// hop carries r through a's proxy to w, in an "upstream" span, and
// reports whether the hop failed.
func (f *Front) hop(w http.ResponseWriter, r *http.Request, a *agent) (failed bool) {
	ctx, hop := withHopOutcome(r.Context())
	ctx, span := f.deps.Tracer.Start(ctx, "upstream", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("capgate.agent", a.cfg.Name)))
	defer span.End()
	injectTrace(ctx, r.Header)
	translateHeaders(r)
	a.proxy.ServeHTTP(w, r.WithContext(ctx))
	if hop.failed {
		span.SetStatus(codes.Error, "upstream_error")
	}
	return hop.failed
}

// forward streams one decided call's answer to the caller and records it.
func (f *Front) forward(w http.ResponseWriter, r *http.Request, c *call) {
	start := f.deps.Now()
	failed := f.hop(w, r.WithContext(withAnswers(r.Context(), c)), c.agent)
	f.observeForwarded(c, start, failed)
}

// observeForwarded records one forwarded call: the upstream's latency and
// the call's result.
func (f *Front) observeForwarded(c *call, start time.Time, failed bool) {
	f.deps.Metrics.ObserveUpstream(c.agent.cfg.Name, f.deps.Now().Sub(start))
	result := "ok"
	if failed {
		result = "upstream_error"
	}
	f.deps.Metrics.ObserveRequest(c.agent.cfg.Name, c.canonical, result)
}

// outcomeKey carries the mutable record of one forwarded call, so the
// proxy's error handler can mark an upstream failure.
type outcomeKey struct{}

type hopOutcome struct{ failed bool }

func withHopOutcome(ctx context.Context) (context.Context, *hopOutcome) {
	o := &hopOutcome{}
	return context.WithValue(ctx, outcomeKey{}, o), o
}

func markUpstreamFailed(ctx context.Context) {
	if o, ok := ctx.Value(outcomeKey{}).(*hopOutcome); ok {
		o.failed = true
	}
}

// errAnswerTooLarge stops the copy of an answer larger than the gateway
// will buffer.
var errAnswerTooLarge = errors.New("a2a front: upstream answer too large")

// bufferedAnswer is the ResponseWriter of an answer the gateway reads
// before the caller sees anything (a batch element, a resolution), bounded
// by max bytes.
type bufferedAnswer struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	max      int
	overflow bool
}

func newBufferedAnswer(max int) *bufferedAnswer {
	return &bufferedAnswer{header: http.Header{}, max: max}
}

// Header implements http.ResponseWriter.
func (b *bufferedAnswer) Header() http.Header { return b.header }

// WriteHeader implements http.ResponseWriter.
func (b *bufferedAnswer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

// Write implements http.ResponseWriter, refusing what exceeds the bound.
func (b *bufferedAnswer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	if b.body.Len()+len(p) > b.max {
		b.overflow = true
		return 0, errAnswerTooLarge
	}
	return b.body.Write(p)
}

// Flush implements http.Flusher; there is nothing to flush to.
func (b *bufferedAnswer) Flush() {}
