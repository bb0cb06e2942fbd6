package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestPolicyPageExplains: the policy page shows the rules themselves, and
// the explain form takes what `capgate policy explain` takes (operations,
// filters, expiry, an A2E handshake) and answers with the decision
// highlighted; a form it cannot read says why.
func TestPolicyPageExplains(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	alice := url.Values{"principal": {"user:alice@example.com"}, "groups": {"finance"}}
	with := func(kv ...string) string {
		q := url.Values{}
		for k, v := range alice {
			q[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return "/console/policy?" + q.Encode()
	}
	for _, tt := range []struct {
		name, path string
		wantStatus int
		want       []string
	}{
		{"rules", "/console/policy", http.StatusOK, []string{`id="rules"`, "contractors-never-hr",
			"Contractors stay away from HR documents.", "groups [contractors]", "collection=hr",
			"at most 1h", "up to 2 hops", "by group security", "finance-lab", "lab: [tools, memory]"}},
		{"narrowed", with("agent", "documents", "grants", "documents:read", "operations", "retrieve, delete",
			"collection", "reports", "filters", "quarter=2025-Q1", "expires", "30m"), http.StatusOK,
			[]string{`class="card verdict allow"`, "<h2>Allowed</h2>", "by rule <code>finance-read-reports</code>",
				"<dd>retrieve</dd>", "collection=reports quarter=[2025-Q1]", "Rule by rule"}},
		{"denied", with("agent", "documents", "grants", "documents:read", "collection", "hr"), http.StatusOK,
			[]string{`class="card verdict deny"`, "<h2>Denied</h2>"}},
		{"needs approval", "/console/policy?principal=user:carol@example.com&groups=hr,editors&agent=documents&grants=documents:read,documents:write&collection=hr",
			http.StatusOK, []string{`verdict pending`, "Allowed after approval", "by group security"}},
		{"a2e", with("host", "lab", "capabilities", "tools, exec"), http.StatusOK,
			[]string{"Partly allowed", "<code>tools</code>", "<code>exec</code> denied"}},
		{"bad expiry", with("agent", "documents", "grants", "documents:read", "expires", "soon"), http.StatusBadRequest,
			[]string{`id="form-error"`, "neither an RFC 3339 time nor a positive duration"}},
		{"bad filter", with("agent", "documents", "grants", "documents:read", "filters", "quarter"), http.StatusBadRequest,
			[]string{"filters: &#34;quarter&#34; is not key=value"}},
		{"no grant", with("agent", "documents"), http.StatusBadRequest, []string{"needs the agent and at least one grant"}},
		{"no principal", "/console/policy?agent=documents&grants=documents:read", http.StatusBadRequest,
			[]string{"the principal is required"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, page := b.get(tt.path)
			if code != tt.wantStatus {
				t.Errorf("status %d, want %d", code, tt.wantStatus)
			}
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q:\n%s", w, page)
				}
			}
		})
	}
}
