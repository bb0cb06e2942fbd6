package policy_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestSummariesGolden: the quickstart policy's rules, as the console
// shows them, in file order with their limits, approvers and conditions.
func TestSummariesGolden(t *testing.T) {
	p := loadQuickstart(t)
	got, err := json.MarshalIndent(p.Summaries(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if n, want := len(p.Summaries()), len(p.Rules()); n != want {
		t.Errorf("%d summaries for %d rules", n, want)
	}
	golden(t, filepath.Join("testdata", "summaries", "quickstart.json"), append(got, '\n'))
}
