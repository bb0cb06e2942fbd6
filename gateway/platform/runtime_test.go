package platform

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
)

func TestWithDefaults(t *testing.T) {
	r := Runtime{}.WithDefaults()
	if r.Now == nil || r.Logger == nil {
		t.Fatal("WithDefaults left the clock or the logger nil")
	}
	if _, ok := r.Tracer.(noop.Tracer); !ok {
		t.Fatalf("default tracer is %T, want noop.Tracer", r.Tracer)
	}
	if r.Metrics != nil || r.Redis != nil || r.Getenv != nil || r.ReadFile != nil {
		t.Fatal("WithDefaults filled a field whose nil has a meaning")
	}
	fixed := time.Unix(1, 0)
	if got := (Runtime{Now: func() time.Time { return fixed }}).WithDefaults().Now(); !got.Equal(fixed) {
		t.Fatalf("WithDefaults replaced a given clock: %v", got)
	}
}
