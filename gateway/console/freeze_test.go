package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFreezePage: an admin freezes alice from the console: every
// capability of her chain is revoked, she is listed as frozen with who
// and why, and the action is in the audit trail; a freeze without a
// reason or without the CSRF token does nothing; unfreezing empties the
// list. Approvers do not see the page.
func TestFreezePage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/freeze")
	if !strings.Contains(page, "Nothing is frozen.") {
		t.Fatalf("freeze page:\n%s", page)
	}
	token := csrf(t, page)
	form := func(action, reason, csrf string) url.Values {
		return url.Values{"csrf": {csrf}, "action": {action}, "kind": {"principal"},
			"name": {"user:alice@example.com"}, "reason": {reason}}
	}
	if code, _ := b.post("/console/freeze", form("freeze", "", token)); code != http.StatusBadRequest {
		t.Fatalf("a freeze without a reason: %d", code)
	}
	if code, _ := b.post("/console/freeze", form("freeze", "stolen laptop", "")); code != http.StatusForbidden {
		t.Fatalf("a freeze without the CSRF token: %d", code)
	}
	for i := range f.chain {
		if got := f.state(t, i); got != "live" {
			t.Fatalf("a refused freeze revoked chain[%d]", i)
		}
	}
	code, page := b.post("/console/freeze", form("freeze", "stolen laptop", token))
	if code != http.StatusOK || !strings.Contains(page, "Frozen on every replica") ||
		!strings.Contains(page, "user:admin@example.com") || !strings.Contains(page, "stolen laptop") {
		t.Fatalf("freeze: %d\n%s", code, page)
	}
	for i := range f.chain {
		if got := f.state(t, i); got != "revoked" {
			t.Errorf("chain[%d] is %s after the freeze, want revoked", i, got)
		}
	}
	if _, audit := b.get("/console/audit"); !strings.Contains(audit, "admin.freeze") {
		t.Errorf("the freeze is not in the audit trail:\n%s", audit)
	}
	code, page = b.post("/console/freeze", form("unfreeze", "found it", token))
	if code != http.StatusOK || !strings.Contains(page, "Nothing is frozen.") {
		t.Fatalf("unfreeze: %d\n%s", code, page)
	}
	sec := newBrowser(t, f)
	sec.signIn(approverKey)
	if code, _ := sec.get("/console/freeze"); code != http.StatusForbidden {
		t.Errorf("an approver opened the freeze page: %d", code)
	}
}
