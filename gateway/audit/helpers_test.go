package audit

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClock returns a clock that starts at a fixed instant and advances a
// millisecond per call.
func testClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// writeEvents logs n invocation events through a fresh handler on chain
// and returns the lines.
func writeEvents(t testing.TB, chain string, n int) []string {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(NewHandler(&buf, Options{Chain: chain, Now: testClock()}))
	for i := range n {
		log.LogAttrs(context.Background(), slog.LevelInfo, "capability.invoke",
			slog.String("principal", "user:alice@example.com"),
			slog.String("agent", "documents"),
			slog.String("decision", []string{"allow", "deny"}[i%2]),
			slog.Any("operations", []string{"retrieve"}),
			slog.Float64("latency_ms", 1.25))
	}
	return splitLines(buf.String())
}

// splitLines splits newline-terminated lines.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// joinLines joins lines into a file.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
