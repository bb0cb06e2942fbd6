package a2afront

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/sep"
)

// catalogConfig is the fixture's world with the documents agent's two Q1
// reports in the config's catalog: issuance answers from it, with no hop
// to the agent.
var catalogConfig = strings.Replace(fixtureConfig, "    skills: {retrieve_document",
	"    catalog:\n"+
		"      - {id: reports/q1-financial, collection: reports, display_name: Q1 Financial Summary, attributes: {quarter: 2025-Q1}}\n"+
		"      - {id: reports/q1-sales, collection: reports, display_name: Q1 Sales Report, attributes: {quarter: 2025-Q1}}\n"+
		"    skills: {retrieve_document", 1)

// newCatalogFixture is the fixture over catalogConfig.
func newCatalogFixture(tb testing.TB) *fixture {
	tb.Helper()
	data, err := readQuickstartPolicy()
	if err != nil {
		tb.Fatal(err)
	}
	return newFixtureWith(tb, catalogConfig, data, quickstartCatalog(), &recorder{})
}

// BenchmarkIssueCatalog is BenchmarkIssue for an agent whose resources
// are in the config's catalog: the signature, the seal, the decision,
// the index write and the audit event, without the resolution hop.
func BenchmarkIssueCatalog(b *testing.B) {
	fx := newCatalogFixture(b)
	benchIssue(b, fx)
	if n := len(fx.upstream.calls("a2a/resources/resolve")); n != 0 {
		b.Fatalf("the agent was asked to resolve %d times", n)
	}
}

// BenchmarkLiveCapabilitiesMemoryCatalog issues b.N capabilities (use
// -benchtime=100000x) from the catalog fixture, whose upstream sees and
// keeps nothing, and reports the heap they cost after a collection: the
// index record, the token and the display names (heapB/cap). Then it
// invokes each once through a verifier whose cache holds them all, as
// the gateway's does (100,000), and reports what the verified-claims and
// opened-map caches add (cacheB/cap; the opened-map cache keeps at most
// 50,000).
func BenchmarkLiveCapabilitiesMemoryCatalog(b *testing.B) {
	fx := newCatalogFixture(b)
	v, err := captoken.NewVerifier(fx.keys, captoken.VerifierConfig{
		Issuer: "capgate", Algorithms: fx.keys.Algorithms(), Now: func() time.Time { return fx.now }, CacheSize: 100_000,
	})
	if err != nil {
		b.Fatal(err)
	}
	fx.front.deps.Verifier = v
	fx.front.checks, err = enforce.New(enforce.Deps{
		Index: fx.front.deps.Index, Verifier: v, Revocations: fx.front.deps.Revocations, Fronted: fx.front.fronts,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c := fx.call(b, aliceKey, "documents", requestBody)
	var ids []byte // the ids, one a line: the benchmark's, not the gateway's
	before := liveHeap()
	for b.Loop() {
		o := fx.front.decide(ctx, c)
		if o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
		ids = append(append(ids, o.resp.Result.(sep.CapabilitiesResult).Capabilities[0].ID...), '\n')
	}
	b.StopTimer()
	reportHeap(b, before+uint64(cap(ids)), "heapB/cap")
	before = liveHeap()
	for line := range bytes.Lines(ids) {
		id := string(line[:len(line)-1])
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":{"skill":"list_documents","capabilityId":%q,"arguments":{}}}`, id)
		if o := fx.front.decide(ctx, fx.call(b, aliceKey, "documents", body)); o.forward == nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
	reportHeap(b, before, "cacheB/cap")
	runtime.KeepAlive(ids)
}
