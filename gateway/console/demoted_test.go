package console_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
)

// swappedPolicy is a policy source whose policy a test replaces, as a
// reload does.
type swappedPolicy struct{ p atomic.Pointer[policy.Policy] }

func (s *swappedPolicy) Current() *policy.Policy { return s.p.Load() }

// noApprovers is a policy naming no approver.
const noApprovers = `version: 1
rules:
  - id: finance-read-reports
    principals: {groups: [finance]}
    agents: [documents]
    grants: [documents:read]
`

// TestSessionEndsWhenRoleTaken: an approver whom a reloaded policy no
// longer names loses the session at their next request, on the record
// (a policy naming them again does not bring it back), and the audit
// trail says so; an admin's session is untouched by the same reload.
func TestSessionEndsWhenRoleTaken(t *testing.T) {
	src := &swappedPolicy{}
	src.p.Store(quickstartPolicy(t))
	f := newFixture(t, fixtureOptions{policy: src})
	approver, admin := newBrowser(t, f), newBrowser(t, f)
	if code, page := approver.signIn(approverKey); code != http.StatusOK || !strings.Contains(page, "fix the parental leave section") {
		t.Fatalf("approver sign-in: %d", code)
	}
	admin.signIn(adminKey)
	reloaded, _, err := policy.Load(context.Background(), []byte(noApprovers), "reloaded.yaml", policytest.QuickstartCatalog())
	if err != nil {
		t.Fatal(err)
	}
	src.p.Store(reloaded)
	if _, page := approver.get("/console/approvals"); !strings.Contains(page, "Dev key") {
		t.Fatalf("the demoted approver still sees a page:\n%s", page)
	}
	src.p.Store(quickstartPolicy(t))
	if _, page := approver.get("/console/approvals"); !strings.Contains(page, "Dev key") {
		t.Fatalf("the ended session came back with the role:\n%s", page)
	}
	if code, page := admin.get("/console/audit?event=console.refused"); code != http.StatusOK ||
		!strings.Contains(page, "role taken away since sign-in: session ended") || !strings.Contains(page, "user:sec@example.com") {
		t.Errorf("the session's end is not in the audit trail: %d\n%s", code, page)
	}
}
