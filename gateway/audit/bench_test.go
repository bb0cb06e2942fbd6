package audit

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
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
