package a2afront

import (
	"context"
	"testing"
)

// TestQuietTracer: a front built without tracing starts no span (Start
// returns the context it was given) and still passes the caller's trace
// context upstream as the caller sent it.
func TestQuietTracer(t *testing.T) {
	fx := newFixture(t)
	if !fx.front.quiet {
		t.Fatal("a front without a tracer is not quiet")
	}
	ctx := context.WithValue(context.Background(), authParentKey{}, "marker")
	got, span := fx.front.deps.Tracer.Start(ctx, "x")
	if got != ctx || span.IsRecording() {
		t.Fatalf("quiet Start returned a new context or a recording span")
	}
	capb := fx.issue(t)
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	body := `{"jsonrpc":"2.0","id":1,"method":"a2a/skill/invoke","params":{"skill":"retrieve_document","capabilityId":"` +
		capb.ID + `","arguments":{"resourceHandle":"` + capb.ResourceHandles[0].Handle + `"}}}`
	if code, out := fx.post(t, aliceKey, "documents", body, map[string]string{"traceparent": tp}); code != 200 {
		t.Fatalf("invoke: %d %s", code, out)
	}
	calls := fx.upstream.calls("a2a/skill/invoke")
	if len(calls) != 1 {
		t.Fatalf("upstream saw %d calls, want 1", len(calls))
	}
	if got := calls[0].header.Get("traceparent"); got != tp {
		t.Fatalf("upstream saw traceparent %q, want %q", got, tp)
	}
}
