package audit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestEventMatchesHandle: Event writes the very line Handle writes for a
// record of the same name, time and attributes, on handlers with and
// without groups, for attributes the builder takes and for those it hands
// to the general path, and for attributes too large to keep.
func TestEventMatchesHandle(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		name  string
		with  func(*Handler) slog.Handler
		attrs []slog.Attr
	}{
		{"invocation", nil, invokeAttrs()},
		{"none", nil, nil},
		{"unsorted and taken keys", nil, []slog.Attr{slog.String("seq", "x"), slog.String("b", "1"), slog.String("a", "2"), slog.String("b", "3")}},
		{"general path", nil, []slog.Attr{slog.Any("m", map[string]int{"z": 1, "a": 2}), slog.String("k", "v")}},
		{"invalid UTF-8", nil, []slog.Attr{slog.String("k\xff", "v\xfe\x00")}},
		{"group and attrs", func(h *Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("replica", "r1")}).WithGroup("call")
		}, []slog.Attr{slog.String("skill", "s"), slog.Group("g", slog.Int("n", 1))}},
		{"too large", nil, []slog.Attr{slog.String("big", strings.Repeat("x", maxAttrBytes+1))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var viaHandle, viaEvent bytes.Buffer
			write := func(w *bytes.Buffer, event bool) {
				var h slog.Handler = NewHandler(w, Options{Chain: "r1"})
				if tt.with != nil {
					h = tt.with(h.(*Handler))
				}
				for range 2 { // the second event links to the first
					var err error
					if event {
						err = h.(*Handler).Event(context.Background(), at, "capability.invoke", tt.attrs...)
					} else {
						r := slog.NewRecord(at, slog.LevelInfo, "capability.invoke", 0)
						r.AddAttrs(tt.attrs...)
						err = h.Handle(context.Background(), r)
					}
					if err != nil && !errors.Is(err, ErrWrite) {
						t.Fatal(err)
					}
				}
			}
			write(&viaHandle, false)
			write(&viaEvent, true)
			if viaEvent.String() != viaHandle.String() {
				t.Fatalf("Event wrote\n%s\nHandle wrote\n%s", viaEvent.String(), viaHandle.String())
			}
			if _, err := Verify(bytes.NewReader(viaEvent.Bytes())); err != nil {
				t.Fatalf("Event's lines do not verify: %v", err)
			}
		})
	}
}
