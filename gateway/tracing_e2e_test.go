package gateway_test

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/capgate/capgate/gateway"
)

// TestTracing records the spans of one invocation: authenticate, decide,
// verify, the revocation check and the upstream hop, in one trace that
// continues the caller's, with the trace context sent upstream.
func TestTracing(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	h := newHarnessWith(t, nil, nil, func(o *gateway.BuildOptions) { o.TracerProvider = tp })
	c := h.aliceQ1()
	sr.Reset()
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	_, r := h.rpc("alice-dev-key", "a2a/skill/invoke", invokeParams("retrieve_document", c.ID,
		map[string]any{"resourceHandle": c.ResourceHandles[0].Handle}), "traceparent", parent)
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	// The server and upstream spans end just after the answer is written,
	// so wait for them rather than read the recorder at once.
	waitFor(t, func() bool { return len(sr.Ended()) >= 6 })
	names := map[string]bool{}
	var upstreamSpan string
	for _, s := range sr.Ended() {
		names[s.Name()] = true
		if s.Name() == "upstream" {
			upstreamSpan = s.SpanContext().SpanID().String()
		}
		if got := s.SpanContext().TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("span %s is in trace %s, not the caller's", s.Name(), got)
		}
	}
	for _, want := range []string{"capgate.a2a", "authenticate", "decide", "verify", "revocation.check", "upstream"} {
		if !names[want] {
			t.Errorf("no %q span; got %v", want, names)
		}
	}
	reqs := h.docs.Recorder().Requests()
	tp0 := reqs[len(reqs)-1].Header.Get("traceparent")
	// version-traceid-parentid-flags: the agent's parent is the upstream
	// span, the client side of the hop, not the server span around it.
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-" + upstreamSpan + "-01"; tp0 != want {
		t.Errorf("upstream traceparent = %q, want %q (the caller's trace, the upstream span)", tp0, want)
	}
}
