package loadtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/capgate/capgate/policy"
)

// World is the size of the world a run measures: how much the upstream
// answers to an invocation, how many of the capability's ids its answer
// names, and how many resources the documents agent's catalog holds. The
// zero World is the quickstart's: a fixed answer of about 100 bytes, no
// ids, resources resolved by the agent's hook.
type World struct {
	// AnswerKiB, when positive, makes the upstream answer every invocation
	// with a text part of AnswerKiB KiB.
	AnswerKiB int `json:"answer_kib"`
	// IDsPerKiB is how many of the capability's real ids the text names
	// per KiB, spread evenly (12.8 is one per 80 bytes): the gateway maps
	// each to the caller's handle; the baseline passes them.
	IDsPerKiB float64 `json:"ids_per_kib"`
	// Catalog, when positive, puts the documents agent's resources in the
	// config's catalog, Catalog of them in all: the two the capability
	// covers (collection reports) and Catalog-2 others (collection
	// archive), so that every capgate issues and checks answers against a
	// catalog of that size.
	Catalog int `json:"catalog"`
}

// Bounds of a World.
const (
	maxAnswerKiB  = 64 << 10 // 64 MiB
	maxCatalog    = 1_000_000
	minCatalog    = 2
	textAlphabet  = "the quick brown fox jumps over the lazy dog "
	answerIDFirst = "reports/q1-financial"
	answerIDOther = "reports/q1-sales"
)

// validate reports what is wrong with w.
func (w World) validate() []string {
	var out []string
	if w.AnswerKiB < 0 || w.AnswerKiB > maxAnswerKiB {
		out = append(out, fmt.Sprintf("answer of %d KiB is outside 0..%d", w.AnswerKiB, maxAnswerKiB))
	}
	if w.IDsPerKiB < 0 || w.IDsPerKiB > 40 || math.IsNaN(w.IDsPerKiB) {
		out = append(out, fmt.Sprintf("%v ids per KiB is outside 0..40", w.IDsPerKiB))
	}
	if w.IDsPerKiB > 0 && w.AnswerKiB == 0 {
		out = append(out, "ids per KiB need an answer size (answer KiB)")
	}
	if w.Catalog != 0 && (w.Catalog < minCatalog || w.Catalog > maxCatalog) {
		out = append(out, fmt.Sprintf("catalog of %d is outside %d..%d", w.Catalog, minCatalog, maxCatalog))
	}
	return out
}

// String names w in a table: "4 KiB, 12.8 ids/KiB, catalog 10,000".
func (w World) String() string {
	answer := "~100 B"
	if w.AnswerKiB > 0 {
		answer = fmt.Sprintf("%d KiB", w.AnswerKiB)
	}
	catalog := "hook"
	if w.Catalog > 0 {
		catalog = groupThousands(float64(w.Catalog))
	}
	return fmt.Sprintf("%s, %g ids/KiB, catalog %s", answer, w.IDsPerKiB, catalog)
}

// answerResult is the JSON-RPC result the upstream answers an invocation
// with in w, or nil for the fixed small one. Its text is plain words,
// with one of the capability's ids every 1024/IDsPerKiB bytes, the two
// ids in turn.
func (w World) answerResult() []byte {
	if w.AnswerKiB <= 0 {
		return nil
	}
	n := w.AnswerKiB << 10
	every := math.Inf(1)
	if w.IDsPerKiB > 0 {
		every = 1024 / w.IDsPerKiB
	}
	var b strings.Builder
	b.Grow(n + 64)
	ids := 0
	for b.Len() < n {
		if float64(b.Len()) >= float64(ids+1)*every-every/2 {
			id := answerIDFirst
			if ids%2 == 1 {
				id = answerIDOther
			}
			b.WriteString(id)
			b.WriteByte(' ')
			ids++
			continue
		}
		b.WriteString(textAlphabet[:min(len(textAlphabet), n-b.Len())])
	}
	text := b.String()[:n]
	return []byte(`{"kind":"message","messageId":"loadtest","role":"agent","parts":[{"kind":"text","text":"` + text + `"}]}`)
}

// catalogOr2 is w's catalog, or when it sets none the two resources the
// upstream resolves.
func (w World) catalogOr2() []policy.Resource {
	if w.Catalog > 0 {
		return w.catalog()
	}
	return upstreamCatalog()
}

// catalog is the documents agent's catalog in w: what the upstream
// resolves (the two reports the capability covers), then Catalog-2
// others in collection archive, each with two attributes.
func (w World) catalog() []policy.Resource {
	if w.Catalog <= 0 {
		return nil
	}
	out := upstreamCatalog()
	for i := range w.Catalog - len(out) {
		out = append(out, policy.Resource{
			ID: fmt.Sprintf("archive/doc-%06d", i), Collection: "archive", DisplayName: fmt.Sprintf("Archived document %d", i),
			Attributes: map[string]string{"quarter": fmt.Sprintf("20%02d-Q%d", 10+i%15, 1+i%4), "owner": fmt.Sprintf("team-%d", i%50)},
		})
	}
	return out
}
