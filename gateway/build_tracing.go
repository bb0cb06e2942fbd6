package gateway

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/capgate/capgate/gateway/config"
)

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
