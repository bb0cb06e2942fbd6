package gateway

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkLiveCapabilitiesMemory issues b.N capabilities (use
// -benchtime=100000x) and reports the live heap they cost, after a
// collection: the memory target is 100,000 live capabilities in the index
// under 100 MB of resident memory.
func BenchmarkLiveCapabilitiesMemory(b *testing.B) {
	gw, p, a := benchGateway(b)
	ctx := context.Background()
	c := benchCall(b, gw, p, a, `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if o := gw.decide(ctx, c); o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heapB/cap")
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "heapMB")
	b.ReportMetric(float64(after.Sys)/(1<<20), "sysMB")
}
