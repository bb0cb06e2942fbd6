package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/enforce"
)

// The cost of MapIDs on one answer, by the size of the world: the
// target's catalog (2, the quickstart's, to 10,000 resources) and the
// answer's size (100 B to 256 KiB), with no id in its text or one of the
// capability's ids per KiB.

// benchScope is a capability on two resources of the catalog.
func benchScope() *enforce.Scope {
	return &enforce.Scope{
		Claims:    &captoken.Claims{Handles: []string{"rh_1", "rh_2"}},
		Resources: enforce.ResourceMap{{Handle: "rh_1", ID: "reports/q1"}, {Handle: "rh_2", ID: "reports/q2"}},
	}
}

// benchKnown is a catalog of n ids: the scope's two, then others that
// share their prefix.
func benchKnown(n int) enforce.Known {
	k := enforce.Known{IDs: []string{"reports/q1", "reports/q2"}, Placeholder: "[resource]"}
	for i := range n - 2 {
		k.IDs = append(k.IDs, fmt.Sprintf("reports/extra-%05d", i))
	}
	return k
}

// benchAnswer is a JSON-RPC answer whose text part holds size bytes of
// prose; with ids, one of the capability's ids every KiB.
func benchAnswer(size int, ids bool) json.RawMessage {
	const prose = "the quarterly report was reviewed by the team and filed; "
	var b strings.Builder
	for next := 0; b.Len() < size; {
		if ids && b.Len() >= next {
			b.WriteString("reports/q1 ")
			next = b.Len() + 1024
		}
		b.WriteString(prose)
	}
	return json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"kind":"message","messageId":"m1","role":"agent",` +
		`"parts":[{"kind":"text","text":"` + b.String()[:size] + `"}]}}`)
}

// BenchmarkMapIDs is the id rule on one unary answer of a scoped call.
func BenchmarkMapIDs(b *testing.B) {
	s := benchScope()
	for _, n := range []int{2, 1_000, 10_000} {
		c := enforce.NewCatalog(benchKnown(n))
		for _, size := range []int{100, 16 << 10, 256 << 10} {
			for _, ids := range []bool{false, true} {
				raw := benchAnswer(size, ids)
				name := fmt.Sprintf("catalog=%d/answer=%dB/ids=%v", n, size, ids)
				if size >= 1024 {
					name = fmt.Sprintf("catalog=%d/answer=%dKiB/ids=%v", n, size>>10, ids)
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(len(raw)))
					b.ReportAllocs()
					for b.Loop() {
						out, err := MapIDs(context.Background(), raw, s, c)
						if err != nil || ids == (len(out) == len(raw)) {
							b.Fatalf("%v, changed %v", err, len(out) != len(raw))
						}
					}
				})
			}
		}
	}
}
