package a2afront

import (
	"context"
	"net/http"
	"testing"

	"github.com/capgate/capgate/gateway/pushrelay"
)

// BenchmarkRelayPush is the relay's decision on one authenticated push
// scoped to a capability: the capability re-decided, the answer pipeline
// (task ownership, id mapping of an artifact naming a real id), the
// record renewed in memory, and the push queued (its delivery, refused
// at dial time for a loopback target, runs in the background).
func BenchmarkRelayPush(b *testing.B) {
	fx := newFixture(b)
	ctx := context.Background()
	capb := fx.issue(b)
	relay := testRelay(b, 100_000)
	fx.front.deps.Push = relay
	rec, _, err := pushrelay.NewRecord(pushrelay.Record{Agent: "documents", Owner: fx.principal(b, aliceKey).ID, Task: "task-1",
		CapabilityID: capb.ID, Target: pushrelay.Target{URL: "https://127.0.0.1:9/hook"}})
	if err != nil || relay.Store.Put(ctx, rec) != nil {
		b.Fatal(err)
	}
	body := []byte(`{"kind":"task","id":"task-1","contextId":"ctx-1","status":{"state":"completed"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"opened reports/q1-financial"}]}]}`)
	a := fx.front.agents["documents"]
	b.ReportAllocs()
	for b.Loop() {
		if outcome, status, err := fx.front.relayPush(ctx, a, rec, body); status != http.StatusAccepted {
			b.Fatalf("%s %d %v", outcome, status, err)
		}
	}
}
