package a2efront_test

import (
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/a2e"
	"github.com/capgate/capgate/revocation/redistest"
)

// BenchmarkEchoRoundTrip measures one tool/call/req through the gateway to
// the lab host and its response back on the stream, over loopback HTTP.
func BenchmarkEchoRoundTrip(b *testing.B) {
	w := newWorld(b, worldOptions{})
	c := w.open(b)
	handshake(b, c, aliceKey, "tools")
	line := mustEncode(b, "bench", &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}})
	ctx := testCtx(b)
	b.ResetTimer()
	for b.Loop() {
		if status, _, err := c.Send(ctx, line); err != nil || status != http.StatusAccepted {
			b.Fatal(status, err)
		}
		if _, err := c.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefusal measures a message refused for a missing capability:
// decoded, checked, published through the store and read off the stream.
func BenchmarkRefusal(b *testing.B) {
	w := newWorld(b, worldOptions{})
	c := w.open(b)
	handshake(b, c, aliceKey, "tools")
	line := mustEncode(b, "bench", &a2e.EnvStepReq{Action: "up"})
	ctx := testCtx(b)
	b.ResetTimer()
	for b.Loop() {
		if status, _, err := c.Send(ctx, line); err != nil || status != http.StatusAccepted {
			b.Fatal(status, err)
		}
		if _, err := c.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEchoRoundTripRedis is BenchmarkEchoRoundTrip with the session
// store in Redis (a local redis-server).
func BenchmarkEchoRoundTripRedis(b *testing.B) {
	srv := redistest.Start(b)
	w := newWorld(b, worldOptions{stores: redisStores(b, srv, 1)})
	c := w.open(b)
	handshake(b, c, aliceKey, "tools")
	line := mustEncode(b, "bench", &a2e.ToolCallReq{ToolName: "echo", Arguments: map[string]any{"text": "hi"}})
	ctx := testCtx(b)
	b.ResetTimer()
	for b.Loop() {
		if status, _, err := c.Send(ctx, line); err != nil || status != http.StatusAccepted {
			b.Fatal(status, err)
		}
		if _, err := c.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
