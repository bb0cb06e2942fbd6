package console_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

// TestApprovalHistory: decided requests leave the pending list for the
// history, newest first, at most 50 of them with a note that older ones
// exist, each with its outcome, approver, reason and hash, never a real
// resource id; an approver sees those of the rules that name them only.
func TestApprovalHistory(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx := context.Background()
	sec := policy.Principal{ID: "user:sec@example.com", Groups: []string{"security"}}
	var last string
	for i := range 51 {
		id := f.seedApproval(t, fmt.Sprintf("user:u%02d@example.com", i))
		if _, err := f.approvals.Deny(ctx, id, sec, fmt.Sprintf("reason %02d", i)); err != nil {
			t.Fatal(err)
		}
		last = id
	}
	other, err := f.approvals.Create(ctx, approval.Request{Principal: "user:bob@example.com", Agent: "documents", Wait: time.Hour,
		Grants: []approval.Grant{{Grant: "documents:read", Operations: []string{"list"}, Approvers: &policy.Approvers{Groups: []string{"finance"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.approvals.Deny(ctx, other.ID, policy.Principal{ID: "user:fin@example.com", Groups: []string{"finance"}}, "finance says no"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key  string
		wantRows   int
		wantOther  bool
		wantOlder  bool
		wantLatest bool
	}{
		{"admin sees every rule's", adminKey, 50, true, true, true},
		{"approver sees their rules' only, filtered before the limit", approverKey, 50, false, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(t, f)
			code, page := b.signIn(tc.key)
			if code != http.StatusOK {
				t.Fatalf("sign-in: %d", code)
			}
			if n := strings.Count(page, `class="outcome-denied"`); n != tc.wantRows {
				t.Errorf("%d history rows, want %d", n, tc.wantRows)
			}
			if got := strings.Contains(page, "finance says no"); got != tc.wantOther {
				t.Errorf("finance's denial shown: %v, want %v", got, tc.wantOther)
			}
			if got := strings.Contains(page, `id="more-history"`); got != tc.wantOlder {
				t.Errorf("older requests said to exist: %v, want %v", got, tc.wantOlder)
			}
			latest := page[strings.Index(page, `id="h-`+last+`"`)+1:]
			if !strings.Contains(page, `id="h-`+last+`"`) || !strings.Contains(latest[:min(len(latest), 2000)], "reason 50") ||
				!strings.Contains(latest[:min(len(latest), 2000)], "sha256:") {
				t.Errorf("the newest decision is not shown with its reason and hash")
			}
			if strings.Contains(page, secretResource) {
				t.Error("the history shows a real resource id")
			}
		})
	}
}
