package audit

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// BenchmarkHandle measures one typical invocation event through the
// handler to io.Discard.
func BenchmarkHandle(b *testing.B) {
	log := slog.New(NewHandler(io.Discard, Options{Chain: "r1"}))
	ctx := context.Background()
	attrs := []slog.Attr{
		slog.String("caller", "user:alice@example.com"), slog.String("agent", "documents"),
		slog.String("skill", "retrieve_document"), slog.String("capability_id", "cap_0123456789abcdef0123456789abcdef"),
		slog.Any("operations", []string{"retrieve", "search", "list"}), slog.Any("handles", []string{"h_1", "h_2"}),
		slog.String("purpose", "Q1 summary"), slog.String("decision", "allow"), slog.Float64("latency_ms", 0.42),
	}
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(ctx, slog.LevelInfo, "capability.invoke", attrs...)
	}
}

// BenchmarkVerify measures verification per event.
func BenchmarkVerify(b *testing.B) {
	file := []byte(joinLines(writeEvents(b, "r1", 1000)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
	}
}

// invokeAttrs are the attributes of an allowed invocation's event, as the
// A2A front logs them: in key order.
func invokeAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("agent", "documents"), slog.String("caller", "user:alice@example.com"),
		slog.String("capability_id", "cap_0123456789abcdef0123456789abcdef"), slog.String("decision", "allow"),
		slog.Int("depth", 0), slog.String("grant", "documents:read"),
		slog.Any("handles", []string{"rh_0123456789abcdef0123456789"}), slog.String("holder", "user:alice@example.com"),
		slog.String("operation", "retrieve"), slog.String("parent_id", ""), slog.String("policy_revision", "rev-1"),
		slog.String("principal", "user:alice@example.com"), slog.String("purpose", ""),
		slog.String("requested_capability_id", "cap_0123456789abcdef0123456789abcdef"),
		slog.String("skill", "retrieve_document"),
	}
}

// BenchmarkHandleInvoke measures the event of an allowed invocation, the
// one event on the invoke path, through the handler to io.Discard.
func BenchmarkHandleInvoke(b *testing.B) {
	h := NewHandler(io.Discard, Options{Chain: "r1"})
	ctx := context.Background()
	attrs := invokeAttrs()
	b.ReportAllocs()
	for b.Loop() {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "capability.invoke", 0)
		r.AddAttrs(attrs...)
		if err := h.Handle(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventInvoke is BenchmarkHandleInvoke through Event, as the A2A
// front writes the event: no slog.Record.
func BenchmarkEventInvoke(b *testing.B) {
	h := NewHandler(io.Discard, Options{Chain: "r1"})
	ctx := context.Background()
	attrs := invokeAttrs()
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Event(ctx, time.Now(), "capability.invoke", attrs...); err != nil {
			b.Fatal(err)
		}
	}
}
