package enforce_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/enforce"
)

// The cost of the id rule on one answer, by the size of the world: the
// target's catalog (2, the quickstart's, to 10,000 resources) and the
// answer's size (100 B to 256 KiB), with no id in the text or one of the
// capability's ids per KiB.

// benchCatalogs and benchSizes are the benchmarks' axes.
var (
	benchCatalogs = []int{2, 1_000, 10_000}
	benchSizes    = []int{100, 4 << 10, 16 << 10, 256 << 10}
)

// benchKnown is a catalog of n ids: the test scope's two, then others
// that share their prefix.
func benchKnown(n int) enforce.Known {
	k := enforce.Known{IDs: []string{"reports/q1", "reports/q2"}, Placeholder: "[resource]"}
	for i := range n - 2 {
		k.IDs = append(k.IDs, fmt.Sprintf("reports/extra-%05d", i))
	}
	return k
}

// benchText is size bytes of prose; with ids, one of the capability's
// ids every KiB.
func benchText(size int, ids bool) string {
	const prose = "the quarterly report was reviewed by the team and filed; "
	var b strings.Builder
	for next := 0; b.Len() < size; {
		if ids && b.Len() >= next {
			b.WriteString("reports/q1 ")
			next = b.Len() + 1024
		}
		b.WriteString(prose)
	}
	return b.String()[:size]
}

// benchName names one point of the matrix.
func benchName(catalog, size int, ids bool) string {
	return fmt.Sprintf("catalog=%d/answer=%s/ids=%v", catalog, sizeName(size), ids)
}

func sizeName(n int) string {
	if n >= 1024 {
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkIDMapReplace is what one answer string costs: the scope's map
// built, then every id in the text replaced.
func BenchmarkIDMapReplace(b *testing.B) {
	s := testScope()
	for _, n := range benchCatalogs {
		c := enforce.NewCatalog(benchKnown(n))
		for _, size := range benchSizes {
			for _, ids := range []bool{false, true} {
				text := benchText(size, ids)
				b.Run(benchName(n, size, ids), func(b *testing.B) {
					b.SetBytes(int64(size))
					b.ReportAllocs()
					for b.Loop() {
						out, refused := s.IDMap(c).Replace(text)
						if refused || ids == (out == text) {
							b.Fatalf("refused %v, changed %v", refused, out != text)
						}
					}
				})
			}
		}
	}
}
