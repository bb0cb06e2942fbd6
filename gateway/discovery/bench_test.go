package discovery_test

import (
	"context"
	"testing"

	"github.com/capgate/capgate/gateway/discovery"
)

// BenchmarkSnapshot measures one quickstart snapshot (3 grants × 3 probes
// of policy.Decide, 5 ambient checks).
func BenchmarkSnapshot(b *testing.B) {
	in := quickstartInput(b, "carol", quickstartPolicy(b))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := discovery.Snapshot(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
