package console_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/approval"
)

// forge flips the status of the fixture's request id without the key.
func forge(t *testing.T, f *fixture, id string, to approval.Status) {
	t.Helper()
	if _, err := f.rawApprovals.Update(context.Background(), id, func(r *approval.Request) (bool, error) {
		r.Status = to
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestApprovalsNamesForged: the approvals page names to admins, in a
// warning, the stored requests that fail their MAC, whatever status they
// claim, and logs them at warn, while still showing the requests that
// verify; approvers see those only. A store error that is or joins
// anything else fails the page.
func TestApprovalsNamesForged(t *testing.T) {
	down := fmt.Errorf("%w: down", approval.ErrUnavailable)
	named := &approval.ForgedError{IDs: []string{"apr_named"}}
	tests := []struct {
		name      string
		key       string
		forged    int // requests seeded then forged, claiming denied
		listFails error
		wantCode  int
		want      []string // "FORGED" stands for the first forged id
		wantNot   []string
		wantWarn  bool
	}{
		{name: "none forged", key: adminKey, wantCode: http.StatusOK,
			want: []string{"fix the parental leave section"}, wantNot: []string{`id="forged"`}},
		{name: "one forged, to an admin", key: adminKey, forged: 1, wantCode: http.StatusOK, wantWarn: true,
			want: []string{`id="forged"`, "1 stored request fails its seal", "<code>FORGED</code>", "fix the parental leave section"}},
		{name: "one forged, to an approver", key: approverKey, forged: 1, wantCode: http.StatusOK, wantWarn: true,
			want: []string{"fix the parental leave section"}, wantNot: []string{`id="forged"`, "FORGED"}},
		{name: "many forged", key: adminKey, forged: 102, wantCode: http.StatusOK, wantWarn: true,
			want: []string{"102 stored requests fail their seal", "and 2 more.", "fix the parental leave section"}},
		{name: "wrapped forged", key: adminKey, listFails: fmt.Errorf("listing: %w", named), wantCode: http.StatusOK,
			wantWarn: true, want: []string{"<code>apr_named</code>", "fix the parental leave section"}},
		// A writer to the store chooses the id: it is shown escaped.
		{name: "hostile forged id", key: adminKey, listFails: &approval.ForgedError{IDs: []string{`apr_<script>x</script>`}},
			wantCode: http.StatusOK, wantWarn: true, want: []string{"<code>apr_&lt;script&gt;x&lt;/script&gt;</code>"},
			wantNot: []string{"<script>x"}},
		{name: "store unavailable", key: adminKey, listFails: down, wantCode: http.StatusServiceUnavailable,
			want: []string{"The approval store is unavailable."}, wantNot: []string{"fix the parental leave section"}},
		{name: "forged joined with unavailable", key: adminKey, listFails: errors.Join(named, down),
			wantCode: http.StatusServiceUnavailable, want: []string{"unavailable"}, wantNot: []string{"apr_named", "fix the parental"}},
		{name: "forged joined with another error", key: adminKey, listFails: errors.Join(named, errors.New("boom")),
			wantCode: http.StatusServiceUnavailable, want: []string{"unavailable"}, wantNot: []string{"apr_named", "fix the parental"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{listFails: tt.listFails})
			var first string
			for i := range tt.forged {
				id := f.seedApproval(t, "user:dana@example.com")
				forge(t, f, id, approval.StatusDenied)
				if i == 0 {
					first = id
				}
			}
			b := newBrowser(t, f)
			b.signIn(tt.key)
			code, page := b.get("/console/approvals")
			if code != tt.wantCode {
				t.Fatalf("status %d, want %d\n%s", code, tt.wantCode, page)
			}
			for _, want := range tt.want {
				if want = strings.ReplaceAll(want, "FORGED", first); !strings.Contains(page, want) {
					t.Errorf("the page lacks %q:\n%s", want, page)
				}
			}
			for _, not := range tt.wantNot {
				if not = strings.ReplaceAll(not, "FORGED", first); strings.Contains(page, not) {
					t.Errorf("the page shows %q:\n%s", not, page)
				}
			}
			logs := f.logs.String()
			if warned := strings.Contains(logs, `"level":"WARN"`) && strings.Contains(logs, "fail their MAC"); warned != tt.wantWarn {
				t.Errorf("warned %v, want %v: %s", warned, tt.wantWarn, logs)
			}
		})
	}
}
