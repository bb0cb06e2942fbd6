package agentcard_test

import (
	"testing"

	"github.com/capgate/capgate/gateway/agentcard"
)

// BenchmarkValidate measures one pre-delegation check of the quickstart
// documents card.
func BenchmarkValidate(b *testing.B) {
	card := readCard(b, "documents_upstream.json")
	need := agentcard.Requirements{ProtocolVersion: "0.3", Capabilities: agentcard.RequirementsFor("message/stream", true)}
	b.ReportAllocs()
	for b.Loop() {
		if err := agentcard.Validate(card, need); err != nil {
			b.Fatal(err)
		}
	}
}
