package a2afront

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/jsonrpc"
)

const requestBody = `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`

// BenchmarkInvokeCheck is the whole decision of an a2a/skill/invoke,
// excluding the proxy hop: dev-key authentication, one JSON decode, the
// capability (verified-claims cache warm), holder, revocation, operation
// and handle checks, and the rewrite of the forwarded body.
func BenchmarkInvokeCheck(b *testing.B) {
	for _, withToken := range []bool{false, true} {
		b.Run(fmt.Sprintf("token=%v", withToken), func(b *testing.B) {
			fx := newFixture(b)
			ctx := context.Background()
			c := fx.issue(b)
			params := fmt.Sprintf(`{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}`, c.ID, c.ResourceHandles[0].Handle)
			if withToken {
				params = strings.Replace(params, `"skill"`, fmt.Sprintf(`"capabilityToken":%q,"skill"`, c.Token), 1)
			}
			body := []byte(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":` + params + `}`)
			hr := httptest.NewRequest("POST", "/a2a/documents", nil)
			a := fx.front.agents["documents"]
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				pr, err := fx.authn.AuthenticateToken(ctx, aliceKey)
				if err != nil {
					b.Fatal(err)
				}
				reqs, _, err := jsonrpc.Decode(body, fx.front.cfg.Limits)
				if err != nil {
					b.Fatal(err)
				}
				if o := fx.front.decide(ctx, &call{agent: a, principal: pr, req: reqs[0], http: hr}); o.forward == nil {
					b.Fatalf("refused: %+v", o.resp)
				}
			}
		})
	}
}

// BenchmarkIssue is one a2a/capabilities/request decision with the
// resolution hook over loopback HTTP.
func BenchmarkIssue(b *testing.B) {
	benchIssue(b, newFixture(b))
}

// benchIssue issues alice's documents:read on fx, once per iteration.
func benchIssue(b *testing.B, fx *fixture) {
	ctx := context.Background()
	c := fx.call(b, aliceKey, "documents", requestBody)
	b.ReportAllocs()
	for b.Loop() {
		if o := fx.front.decide(ctx, c); o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
}

// BenchmarkLiveCapabilitiesMemory issues b.N capabilities (use
// -benchtime=100000x) and reports the live heap they cost, after a
// collection: the memory target is 100,000 live capabilities in the index
// under 100 MB of resident memory. The fixture's recording upstream keeps
// every resolution request it saw, which counts here too; the catalog
// variant (BenchmarkLiveCapabilitiesMemoryCatalog) has no such share.
func BenchmarkLiveCapabilitiesMemory(b *testing.B) {
	fx := newFixture(b)
	c := fx.call(b, aliceKey, "documents", requestBody)
	before := liveHeap()
	for b.Loop() {
		if o := fx.front.decide(context.Background(), c); o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
	reportHeap(b, before, "heapB/cap")
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// reportHeap reports the heap grown since before, per b.N, as unit.
func reportHeap(b *testing.B, before uint64, unit string) {
	after := liveHeap()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), unit)
	b.ReportMetric(float64(after)/(1<<20), "heapMB")
}
