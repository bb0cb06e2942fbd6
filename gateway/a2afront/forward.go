package a2afront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/gateway/proxy"
)

// Every request that leaves the front for an agent is an outbound sent
// by send, through the agent's proxy: single calls, batch elements and the
// resolution hook alike. The proxy strips the caller's credentials and
// capability headers from its own copy of the request, then lets the call
// set the body and headers the gateway built and sets the capability
// headers the gateway vouches for, so there is one header hygiene for
// every path, and the caller's request is copied once, by the proxy.

// outbound is one request the front sends an agent, as the proxy and
// the front's hooks see it. It travels as the request's one context value
// (proxy.WithOutbound); the answer processors, the error handler and the
// proxy all read it from there.
type outbound struct {
	c       *call           // whose answer the processors see; nil: none (the resolution hook)
	id      json.RawMessage // for the proxy's error answer
	vouched *proxy.Context  // the capability context the gateway vouches for; nil: none
	body    []byte          // what the agent receives
	trace   bool            // the front traces: send the trace context on
	failed  bool            // set by the proxy's error handler
}

// allowedCall is the outbound of a decided call.
func allowedCall(c *call, out outcome) *outbound {
	return &outbound{c: c, id: c.req.ID, vouched: out.cc, body: out.forward}
}

// Vouched implements proxy.Outbound.
func (u *outbound) Vouched() (proxy.Context, bool) {
	if u.vouched == nil {
		return proxy.Context{}, false
	}
	return *u.vouched, true
}

// Prepare implements proxy.Outbound: the decided body as a JSON POST. The
// answer processors read the answer: the transport asks for and undoes
// any compression itself, never the caller's encodings.
func (u *outbound) Prepare(out *http.Request) {
	out.Method = http.MethodPost
	proxy.SetBody(out, u.body)
	out.Header.Set("Content-Type", "application/json")
	out.Header.Del("Accept-Encoding")
	if u.trace {
		injectTrace(out.Context(), out.Header)
	}
	if u.c != nil && u.c.translated != "" {
		translateHeaders(out.Header)
	}
}

// upstreamFrom is the outbound a request or answer context carries.
func upstreamFrom(ctx context.Context) (*outbound, bool) {
	o, ok := proxy.OutboundFrom(ctx)
	if !ok {
		return nil, false
	}
	u, ok := o.(*outbound)
	return u, ok
}

// carry takes u through a's proxy to w, on ctx (r's own context or one
// derived from it), in an "upstream" span, and reports whether the hop
// failed. r is the caller's request; the proxy copies it, once.
func (f *Front) carry(ctx context.Context, w http.ResponseWriter, r *http.Request, u *outbound, a *agent) (failed bool) {
	if f.quiet {
		a.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
		return u.failed
	}
	ctx, span := f.deps.Tracer.Start(ctx, "upstream", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("capgate.agent", a.cfg.Name)))
	defer span.End()
	u.trace = true
	a.proxy.ServeHTTP(w, r.WithContext(proxy.WithOutbound(ctx, u)))
	if u.failed {
		span.SetStatus(codes.Error, "upstream_error")
	}
	return u.failed
}

// forward streams one decided call's answer to the caller and records it.
func (f *Front) forward(ctx context.Context, w http.ResponseWriter, c *call, out outcome) {
	start := f.deps.Now()
	failed := f.carry(ctx, w, c.http, allowedCall(c, out), c.agent)
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
