package console_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/siem"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// TestShadowPage: without a shadow policy the page says how to run one;
// with one it shows both revisions, the disagreements the audit file
// holds, newest first, and the diff between the enforced and the
// candidate policy. Approvers do not see it.
func TestShadowPage(t *testing.T) {
	b := newBrowser(t, newFixture(t, fixtureOptions{}))
	b.signIn(adminKey)
	if _, page := b.get("/console/shadow"); !strings.Contains(page, "No shadow policy is configured") {
		t.Fatalf("without a shadow policy:\n%s", page)
	}

	cand := narrowedCandidate(t)
	f := newFixture(t, fixtureOptions{shadow: cand})
	writeDisagreements(t, f, "user:alice@example.com", "user:erin@example.com")
	b = newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/shadow")
	erin, alice := strings.Index(page, "user:erin@example.com"), strings.Index(page, "user:alice@example.com")
	if erin < 0 || alice < erin || !strings.Contains(page, cand.Revision()) || !strings.Contains(page, "documents:read ops=list,retrieve,search") {
		t.Fatalf("disagreements not shown, newest first:\n%s", page)
	}
	if !strings.Contains(page, "rule finance-read-reports") || !strings.Contains(page, "narrows") {
		t.Fatalf("the diff is not shown:\n%s", page)
	}
	sec := newBrowser(t, f)
	sec.signIn(approverKey)
	if code, _ := sec.get("/console/shadow"); code != 403 {
		t.Errorf("an approver opened the shadow page: %d", code)
	}
}

// narrowedCandidate is the replay tests' candidate policy, which narrows
// finance-read-reports.
func narrowedCandidate(t *testing.T) *policy.Policy {
	t.Helper()
	path := filepath.Join("..", "..", "policy", "replay", "testdata", "narrowed.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cand, _, err := policy.Load(context.Background(), data, path, policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return cand
}

// writeDisagreements appends one policy.shadow_disagreement per principal
// to the fixture's audit file, as another replica would.
func writeDisagreements(t *testing.T, f *fixture, principals ...string) {
	t.Helper()
	file, err := os.OpenFile(f.auditFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	log := slog.New(audit.NewHandler(file, audit.Options{Chain: "replica-2"}))
	for _, who := range principals {
		log.Info("policy.shadow_disagreement", "principal", who, "agent", "documents", "grants", []string{"documents:read"},
			"enforced", map[string]any{"allow": true, "outcome": []string{"documents:read ops=list,retrieve,search"}},
			"candidate", map[string]any{"allow": false, "outcome": []string{"denied"}})
	}
}

// TestShadowPageSIEMTrails: on an OCSF trail the disagreements are read
// from the event each record keeps; a CEF trail, which keeps none, is
// said to be CEF rather than shown as holding no disagreement.
func TestShadowPageSIEMTrails(t *testing.T) {
	tests := []struct {
		format    siem.Format
		want, not []string
	}{
		{siem.OCSF, []string{"user:erin@example.com", "documents:read ops=list,retrieve,search"}, []string{"in CEF"}},
		{siem.CEF, []string{"The audit trail is in CEF"}, []string{"user:erin@example.com"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{shadow: narrowedCandidate(t), auditFormat: tt.format})
			f.auditLog.Info("policy.shadow_disagreement", "principal", "user:erin@example.com", "agent", "documents",
				"grants", []string{"documents:read"},
				"enforced", map[string]any{"allow": true, "outcome": []string{"documents:read ops=list,retrieve,search"}},
				"candidate", map[string]any{"allow": false, "outcome": []string{"denied"}})
			b := newBrowser(t, f)
			b.signIn(adminKey)
			_, page := b.get("/console/shadow")
			pageHas(t, page, tt.want, tt.not)
		})
	}
}
