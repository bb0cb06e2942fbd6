package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// TestAuditPageFiltersAndPages: the audit page filters by principal,
// agent, capability id, event kind and time, pages through the matches
// newest first, links capability ids to their page, says what an
// admin.revoke revoked, and keeps verifying the chain.
func TestAuditPageFiltersAndPages(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	child := f.chain[1].CapabilityID
	_, page := b.get("/console/capability?id=" + child)
	if code, _ := b.post("/console/revoke", url.Values{"csrf": {csrf(t, page)}, "id": {child}}); code != http.StatusOK {
		t.Fatalf("revoke: %d", code)
	}
	for i := range 120 {
		f.auditLog.Info("capability.invoke", "principal", "user:bob@example.com", "agent", "notes",
			"capability_id", fmt.Sprintf("cap_bob_%03d", i), "decision", "allow")
	}
	for _, tt := range []struct {
		name, query string
		wantStatus  int
		want, not   []string
	}{
		{"all", "", http.StatusOK, []string{"123 events, chain intact", "Events 1–50 of 123", `rel="next"`, "cap_bob_119"},
			[]string{"cap_bob_069", `rel="prev"`}},
		{"revoke row", "event=admin.revoke", http.StatusOK, []string{"Events 1–1 of 1",
			"revoked capability " + child + " and every capability delegated from it",
			`href="/console/capability?id=` + child + `"`, "<b>admin</b> user:admin@example.com"}, []string{"cap_bob_"}},
		{"event prefix", "event=capability", http.StatusOK, []string{"of 122"}, []string{"<code>admin.revoke</code>"}},
		{"principal", "principal=user:bob@example.com&page=2", http.StatusOK, []string{"Events 101–120 of 120", "cap_bob_019",
			"cap_bob_000", `rel="prev"`}, []string{"cap_bob_020", `rel="next"`, "quarterly review"}},
		{"holder is a principal", "principal=agent:summarizer", http.StatusOK, []string{"Events 1–1 of 1"}, nil},
		{"agent", "agent=documents", http.StatusOK, []string{"of 2 matching"}, []string{"cap_bob_"}},
		{"capability id", "capability=cap_bob_007", http.StatusOK, []string{"Events 1–1 of 1", "cap_bob_007"}, []string{"cap_bob_008"}},
		{"time range", "from=2001-01-01T00:00&to=2002-01-01", http.StatusOK, []string{"0 events matching", "No events match the filter."}, nil},
		{"bad time", "from=yesterday", http.StatusBadRequest, []string{"The filter cannot be read", "is not a time"}, nil},
		{"page past the end", "page=99", http.StatusOK, []string{"123 events matching", `rel="prev"`}, []string{`rel="next"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, page := b.get("/console/audit?" + tt.query)
			if code != tt.wantStatus {
				t.Errorf("status %d, want %d", code, tt.wantStatus)
			}
			pageHas(t, page, tt.want, tt.not)
		})
	}
}
