package a2afront

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/metrics"
)

// observeDecision counts one call's decision: ok when forwarded, denied
// for a capability refusal, invalid for bad input, error otherwise.
func (f *Front) observeDecision(c *call, out outcome, start time.Time) {
	m := f.deps.Metrics
	m.ObserveStep(metrics.StepTotal, f.deps.Now().Sub(start))
	if out.resp == nil {
		m.ObserveDecision(metrics.Allowed)
		return
	}
	agent, method := c.agent.cfg.Name, c.canonical
	e := out.resp.Error
	switch {
	case e == nil:
		m.ObserveRequest(agent, method, "ok")
	case e.Code <= jsonrpc.CodeCapabilityRequired && e.Code >= jsonrpc.CodeRevocationUnavailable:
		m.ObserveDecision(e.Reason())
		m.ObserveRequest(agent, method, "denied")
	case e.Code <= jsonrpc.CodeInvalidRequest && e.Code >= jsonrpc.CodeParseError || e.Code == jsonrpc.CodeMethodNotFound || e.Code == jsonrpc.CodeInvalidParams:
		m.ObserveRequest(agent, method, "invalid")
	default:
		m.ObserveRequest(agent, method, "error")
	}
}

// countUnauthenticated counts the 401s of the authentication step.
func (f *Front) countUnauthenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == http.StatusUnauthorized {
			f.deps.Metrics.ObserveRequest(chiAgent(r), metrics.Other, "unauthenticated")
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// traceRequest starts the server span of an /a2a call, continuing the
// caller's trace when it sent one (W3C trace context).
func (f *Front) traceRequest(next http.Handler) http.Handler {
	if f.quiet {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := f.deps.Tracer.Start(ctx, "capgate.a2a", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("capgate.agent", chiAgent(r))))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// tracedAuthn wraps the authentication step in its own span, ended as
// soon as the principal is known (or the caller refused).
func (f *Front) tracedAuthn(next http.Handler) http.Handler {
	if f.quiet {
		return authn.Middleware(f.deps.Authenticator, f.deps.Logger)(next)
	}
	authed := authn.Middleware(f.deps.Authenticator, f.deps.Logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		p, ok := authn.PrincipalFrom(r.Context())
		if ok {
			span.SetAttributes(attribute.String("capgate.principal", p.ID))
		}
		span.End()
		parent := r.Context().Value(authParentKey{}).(context.Context)
		next.ServeHTTP(w, r.WithContext(authn.WithPrincipal(parent, p)))
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := f.deps.Tracer.Start(r.Context(), "authenticate")
		defer span.End()
		ctx = context.WithValue(ctx, authParentKey{}, r.Context())
		authed.ServeHTTP(w, r.WithContext(ctx))
	})
}

type authParentKey struct{}

// quietTracer is the tracer of a front built without tracing (the
// OpenTelemetry no-op tracer): it starts nothing and allocates nothing,
// where the no-op tracer still stores a span in a new context on every
// Start, several times per call. Every Start returns the same no-op span,
// never a span found in the context, which is not this front's to end.
type quietTracer struct {
	embedded.Tracer
	span trace.Span
}

// Start returns ctx as it is and the no-op span.
func (t quietTracer) Start(ctx context.Context, _ string, _ ...trace.SpanStartOption) (context.Context, trace.Span) {
	return ctx, t.span
}

// decideSpan starts the "decide" span of a call to method. A quiet front
// builds no attribute for it: the options would be allocated on every
// call only to be dropped.
func (f *Front) decideSpan(ctx context.Context, method string) (context.Context, trace.Span) {
	if f.quiet {
		return f.deps.Tracer.Start(ctx, "decide")
	}
	return f.span(ctx, "decide", attribute.String("rpc.method", method))
}

// span starts a child span of ctx's.
func (f *Front) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return f.deps.Tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endWith ends span, marking it as an error when the step refused.
func endWith(span trace.Span, e *jsonrpc.Error) {
	if e != nil {
		span.SetStatus(codes.Error, e.Reason())
		span.SetAttributes(attribute.String("capgate.reason", e.Reason()))
	}
	span.End()
}

// injectTrace writes ctx's trace context into the headers sent upstream.
func injectTrace(ctx context.Context, h http.Header) {
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
}
