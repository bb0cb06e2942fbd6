package gateway

import (
	"context"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// tracerName is the instrumentation scope of capgate's spans.
const tracerName = "github.com/capgate/capgate/gateway"

// propagator carries W3C trace context in and out.
var propagator = propagation.TraceContext{}

// newTracerProvider exports spans over OTLP/HTTP as the config says, or
// returns a no-op provider when tracing is not configured. Nothing is
// dialled until the first export.
func (b *Built) newTracerProvider(ctx context.Context, cfg *config.Config) (trace.TracerProvider, error) {
	t := cfg.Tracing
	if t == nil {
		return noop.NewTracerProvider(), nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(t.OTLPEndpoint))
	if err != nil {
		return nil, fmt.Errorf("gateway: tracing: %w", err)
	}
	name, ratio := t.ServiceName, 1.0
	if name == "" {
		name = "capgate"
	}
	if t.SampleRatio != nil {
		ratio = *t.SampleRatio
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name))),
	)
	b.closers = append(b.closers, func() error { return tp.Shutdown(context.WithoutCancel(ctx)) })
	return tp, nil
}

// traceRequest starts the server span of an /a2a call, continuing the
// caller's trace when it sent one.
func (g *Gateway) traceRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := g.tracer.Start(ctx, "capgate.a2a", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("capgate.agent", chiAgent(r))))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// tracedAuthn wraps the authentication step in its own span, ended as
// soon as the principal is known (or the caller refused).
func (g *Gateway) tracedAuthn(next http.Handler) http.Handler {
	authed := authn.Middleware(g.authn, g.logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		if p, ok := authn.PrincipalFrom(r.Context()); ok {
			span.SetAttributes(attribute.String("capgate.principal", p.ID))
		}
		span.End()
		parent := r.Context().Value(authParentKey{}).(context.Context)
		next.ServeHTTP(w, r.WithContext(authn.WithPrincipal(parent, principalOf(r))))
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := g.tracer.Start(r.Context(), "authenticate")
		defer span.End()
		ctx = context.WithValue(ctx, authParentKey{}, r.Context())
		authed.ServeHTTP(w, r.WithContext(ctx))
	})
}

type authParentKey struct{}

func principalOf(r *http.Request) *authn.Principal {
	p, _ := authn.PrincipalFrom(r.Context())
	return p
}

// span starts a child span of ctx's.
func (g *Gateway) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return g.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
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
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}
