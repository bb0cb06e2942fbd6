package impact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/impact"
	"github.com/capgate/capgate/policy/policytest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const quickstart = "../../deploy/examples/quickstart/policy.yaml"

var now = time.Date(2025, 1, 9, 12, 0, 0, 0, time.UTC)

func load(t *testing.T, path string) *policy.Policy {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := policy.Load(context.Background(), data, filepath.Base(path), policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// diff compares the quickstart policy with the one at path.
func diff(t *testing.T, oldPath, newPath string) *impact.Report {
	t.Helper()
	old, new := load(t, oldPath), load(t, newPath)
	u := impact.NewUniverse(impact.Sources{Catalog: policytest.QuickstartCatalog(),
		Vocabulary: old.Vocabulary().Merge(new.Vocabulary()), Now: now})
	return impact.Compare(context.Background(), old, new, u)
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s mismatch (run go test -update after checking the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestCompare runs pairs of policies whose difference is known and checks
// the verdict, a change the report must hold, and the whole text report.
func TestCompare(t *testing.T) {
	tests := []struct {
		name                string
		widens, narrows     bool
		want                []string // substrings of the text report
		uncoveredConditions int
	}{
		{name: "identical", want: []string{"0 widening(s), 0 narrowing(s)", "no decision differs."}},
		{name: "reordered", want: []string{"no decision differs."}},
		{name: "widened", widens: true, want: []string{
			"rule contractors-read-reports (new policy)",
			"+ WIDENS   documents documents:read: operations +search (now retrieve,search,list)",
			"for user:alice@example.com [contractors]; group contractors;",
			"operations +search (now retrieve,search,list)",
			"lifetime 15m0s → 4h0m0s",
		}},
		{name: "narrowed", narrows: true, want: []string{
			"rule finance-read-reports (new policy)", "operations -list", "delegation depth 2 → 1",
		}},
		{name: "condition", narrows: true, uncoveredConditions: 1, want: []string{
			"rule finance-read-reports (new policy)",
			`issued → denied: rule "finance-read-reports": condition "request.purpose != \"\"" is false`,
			"groups contractors+finance", "(was rule finance-read-reports)",
			`now.getHours() < 18`, "true ", "false 0",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			newPath := filepath.Join("testdata", tc.name+".yaml")
			if tc.name == "identical" {
				newPath = quickstart
			}
			r := diff(t, quickstart, newPath)
			if r.Widens() != tc.widens || (r.Count(impact.Narrows) > 0) != tc.narrows {
				t.Errorf("widens %t narrows %d, want %t and %t", r.Widens(), r.Count(impact.Narrows), tc.widens, tc.narrows)
			}
			if len(r.Uncovered) != tc.uncoveredConditions {
				t.Errorf("uncovered = %+v, want %d", r.Uncovered, tc.uncoveredConditions)
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q", w)
				}
			}
			golden(t, filepath.Join("testdata", tc.name+".golden"), b.Bytes())
		})
	}
}

// TestCompareBothWays: swapping old and new swaps widenings and
// narrowings.
func TestCompareBothWays(t *testing.T) {
	fwd := diff(t, quickstart, "testdata/widened.yaml")
	back := diff(t, "testdata/widened.yaml", quickstart)
	if fwd.Count(impact.Widens) != back.Count(impact.Narrows) || fwd.Count(impact.Narrows) != back.Count(impact.Widens) {
		t.Errorf("forward %d/%d, backward %d/%d", fwd.Count(impact.Widens), fwd.Count(impact.Narrows),
			back.Count(impact.Widens), back.Count(impact.Narrows))
	}
}

func TestReportJSON(t *testing.T) {
	r := diff(t, quickstart, "testdata/narrowed.yaml")
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/narrowed.json.golden", append(out, '\n'))
}
