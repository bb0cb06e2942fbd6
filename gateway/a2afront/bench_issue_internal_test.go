package a2afront

import (
	"context"
	"strings"
	"testing"
)

// catalogConfig is the fixture's world with the documents agent's two Q1
// reports in the config's catalog: issuance answers from it, with no hop
// to the agent.
var catalogConfig = strings.Replace(fixtureConfig, "    skills: {retrieve_document",
	"    catalog:\n"+
		"      - {id: reports/q1-financial, collection: reports, display_name: Q1 Financial Summary, attributes: {quarter: 2025-Q1}}\n"+
		"      - {id: reports/q1-sales, collection: reports, display_name: Q1 Sales Report, attributes: {quarter: 2025-Q1}}\n"+
		"    skills: {retrieve_document", 1)

// BenchmarkIssueCatalog is BenchmarkIssue for an agent whose resources
// are in the config's catalog: the signature, the seal, the decision,
// the index write and the audit event, without the resolution hop.
func BenchmarkIssueCatalog(b *testing.B) {
	data, err := readQuickstartPolicy()
	if err != nil {
		b.Fatal(err)
	}
	fx := newFixtureWith(b, catalogConfig, data, quickstartCatalog(), &recorder{})
	ctx := context.Background()
	c := fx.call(b, aliceKey, "documents", requestBody)
	b.ReportAllocs()
	for b.Loop() {
		if o := fx.front.decide(ctx, c); o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
	if n := len(fx.upstream.calls("a2a/resources/resolve")); n != 0 {
		b.Fatalf("the agent was asked to resolve %d times", n)
	}
}
