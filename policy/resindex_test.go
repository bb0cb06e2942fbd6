package policy_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/capgate/capgate/policy"
)

// scan is the query answered the plain way: every resource read.
func scan(rs []policy.Resource, q *policy.ResourceQuery) []policy.Resource {
	var out []policy.Resource
	for _, r := range rs {
		if q.Matches(r) {
			out = append(out, r)
		}
	}
	return out
}

func ids(rs []policy.Resource) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestResourceIndexQuery(t *testing.T) {
	rs := []policy.Resource{
		{ID: "reports/q1", Collection: "reports", Attributes: map[string]string{"quarter": "2025-Q1", "owner": "alice"}},
		{ID: "reports/q2", Collection: "reports", Attributes: map[string]string{"quarter": "2025-Q2"}},
		{ID: "notes/a", Collection: "notes", Attributes: map[string]string{"quarter": "2025-Q1", "id": "alias-a"}},
		{ID: "loose"},
	}
	x := policy.NewResourceIndex(rs)
	tests := []struct {
		name string
		q    *policy.ResourceQuery
		want []string
	}{
		{"nil query: all", nil, []string{"reports/q1", "reports/q2", "notes/a", "loose"}},
		{"empty query: all", &policy.ResourceQuery{}, []string{"reports/q1", "reports/q2", "notes/a", "loose"}},
		{"collection", &policy.ResourceQuery{Collection: "reports"}, []string{"reports/q1", "reports/q2"}},
		{"unknown collection", &policy.ResourceQuery{Collection: "none"}, []string{}},
		{"attribute across collections", &policy.ResourceQuery{Filter: map[string]string{"quarter": "2025-Q1"}}, []string{"reports/q1", "notes/a"}},
		{"collection and attribute", &policy.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}}, []string{"reports/q1"}},
		{"two attributes", &policy.ResourceQuery{Filter: map[string]string{"quarter": "2025-Q1", "owner": "alice"}}, []string{"reports/q1"}},
		{"id by ID", &policy.ResourceQuery{Filter: map[string]string{"id": "reports/q2"}}, []string{"reports/q2"}},
		{"id attribute wins over ID", &policy.ResourceQuery{Filter: map[string]string{"id": "notes/a"}}, []string{}},
		{"id attribute", &policy.ResourceQuery{Filter: map[string]string{"id": "alias-a"}}, []string{"notes/a"}},
		{"empty value", &policy.ResourceQuery{Filter: map[string]string{"owner": ""}}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(x.Query(tt.q))
			if !slices.Equal(got, tt.want) || !slices.Equal(got, ids(scan(rs, tt.q))) {
				t.Fatalf("Query = %q, want %q (the scan finds %q)", got, tt.want, ids(scan(rs, tt.q)))
			}
		})
	}
}

// randomCatalog is n resources over few collections and attribute values,
// so that queries match some, many or none.
func randomCatalog(r *rand.Rand, n int) []policy.Resource {
	rs := make([]policy.Resource, n)
	for i := range rs {
		attrs := map[string]string{}
		for _, k := range []string{"a", "b", "id"} {
			if r.IntN(3) > 0 {
				attrs[k] = fmt.Sprint(r.IntN(4))
			}
		}
		rs[i] = policy.Resource{ID: fmt.Sprint(r.IntN(6)), Collection: fmt.Sprint("c", r.IntN(3)), Attributes: attrs}
	}
	return rs
}

// TestResourceIndexAgreesWithScan: on random catalogs and queries, the
// index finds exactly what reading every resource finds, in order.
func TestResourceIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		rs := randomCatalog(r, r.IntN(40))
		x := policy.NewResourceIndex(rs)
		for range 20 {
			q := &policy.ResourceQuery{Filter: map[string]string{}}
			if r.IntN(2) == 0 {
				q.Collection = fmt.Sprint("c", r.IntN(4))
			}
			for _, k := range []string{"a", "b", "id", "z"} {
				if r.IntN(3) == 0 {
					q.Filter[k] = fmt.Sprint(r.IntN(5))
				}
			}
			if got, want := ids(x.Query(q)), ids(scan(rs, q)); !slices.Equal(got, want) {
				t.Fatalf("query %+v: index %q, scan %q", q, got, want)
			}
		}
	}
}

// FuzzResourceIndex compares the index with the scan on catalogs and
// queries the fuzzer chooses.
func FuzzResourceIndex(f *testing.F) {
	f.Add(uint64(1), uint64(2), "c1", "a", "1")
	f.Add(uint64(3), uint64(4), "", "id", "2")
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64, collection, key, value string) {
		r := rand.New(rand.NewPCG(seed1, seed2))
		rs := randomCatalog(r, r.IntN(30))
		q := &policy.ResourceQuery{Collection: collection, Filter: map[string]string{key: value}}
		if key == "" {
			q.Filter = nil
		}
		if got, want := ids(policy.NewResourceIndex(rs).Query(q)), ids(scan(rs, q)); !slices.Equal(got, want) {
			t.Fatalf("query %+v: index %q, scan %q", q, got, want)
		}
	})
}

// BenchmarkResourceIndexQuery: a query for a collection of 2 among
// catalogs of growing size costs the same; the scan grows with them.
func BenchmarkResourceIndexQuery(b *testing.B) {
	for _, n := range []int{2, 1_000, 10_000} {
		rs := []policy.Resource{
			{ID: "reports/q1", Collection: "reports", Attributes: map[string]string{"quarter": "2025-Q1"}},
			{ID: "reports/q2", Collection: "reports", Attributes: map[string]string{"quarter": "2025-Q1"}},
		}
		for i := range n - 2 {
			rs = append(rs, policy.Resource{ID: fmt.Sprint("archive/", i), Collection: "archive", Attributes: map[string]string{"quarter": fmt.Sprint(i % 40)}})
		}
		q := &policy.ResourceQuery{Collection: "reports"}
		x := policy.NewResourceIndex(rs)
		b.Run(fmt.Sprintf("index/catalog=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = x.Query(q)
			}
		})
		b.Run(fmt.Sprintf("scan/catalog=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = scan(rs, q)
			}
		})
	}
}
