package console_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/revocation"
)

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// browser is an HTTP client with a cookie jar, like a browser.
type browser struct {
	t   *testing.T
	c   *http.Client
	url string
}

func newBrowser(t *testing.T, f *fixture) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, c: &http.Client{Jar: jar}, url: f.srv.URL}
}

// get fetches path and returns the status and body.
func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.url + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

func (b *browser) post(path string, form url.Values) (int, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.url+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

func read(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'none'") {
		t.Errorf("%s: Content-Security-Policy %q", resp.Request.URL.Path, csp)
	}
	return resp.StatusCode, string(body)
}

// csrf returns the CSRF token of the first form on the page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the page:\n%s", page)
	}
	return m[1]
}

// signIn signs in with a dev key through the login form.
func (b *browser) signIn(key string) (int, string) {
	b.t.Helper()
	_, page := b.get("/console/login")
	return b.post("/console/login", url.Values{"key": {key}, "csrf": {csrf(b.t, page)}})
}

func TestDevLoginAndEveryPage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	if code, page := b.signIn(adminKey); code != http.StatusOK || !strings.Contains(page, "fix the parental leave section") {
		t.Fatalf("after sign-in: %d\n%s", code, page)
	}
	for path, want := range map[string]string{
		"/console/approvals":                               "HR handbook",
		"/console/capabilities":                            "agent:helper",
		"/console/capabilities?principal=agent:summarizer": "agent:summarizer",
		"/console/revoke?id=" + f.chain[0].CapabilityID:    "also revokes 2 descendants",
		"/console/policy":                                  "Revision in force",
		"/console/policy?principal=user:alice@example.com&groups=finance&agent=documents&grants=documents:read&collection=reports": "documents:read",
		"/console/audit": "2 events, chain intact",
	} {
		code, page := b.get(path)
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("%s: %d, want %q in\n%s", path, code, want, page)
		}
		for _, rec := range f.chain {
			if strings.Contains(page, rec.Token) || strings.Contains(page, secretResource) {
				t.Errorf("%s renders a token or a real resource id", path)
			}
		}
	}
}

func TestSignInRefusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for _, tc := range []struct {
		name, key string
		want      int
	}{
		{"not an operator", aliceKey, http.StatusForbidden},
		{"unknown key", "nope", http.StatusUnauthorized},
		{"empty", "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _ := newBrowser(t, f).signIn(tc.key); code != tc.want {
				t.Errorf("status %d, want %d", code, tc.want)
			}
		})
	}
	t.Run("login post without the token", func(t *testing.T) {
		b := newBrowser(t, f)
		b.get("/console/login")
		if code, _ := b.post("/console/login", url.Values{"key": {adminKey}}); code != http.StatusForbidden {
			t.Errorf("status %d, want 403", code)
		}
	})
	t.Run("signed out", func(t *testing.T) {
		b := newBrowser(t, f)
		if _, page := b.get("/console/capabilities"); !strings.Contains(page, "Dev key") {
			t.Errorf("a signed-out visitor was not sent to sign in:\n%s", page)
		}
	})
}

// TestApproverSeesApprovalsOnly: an approver decides requests but cannot
// open the admin pages; nobody decides their own request.
func TestApproverSeesApprovalsOnly(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	_, page := b.signIn(approverKey)
	for _, p := range []string{"/console/capabilities", "/console/policy", "/console/audit", "/console/revoke?id=" + f.chain[0].CapabilityID} {
		if code, _ := b.get(p); code != http.StatusForbidden {
			t.Errorf("approver on %s: %d, want 403", p, code)
		}
	}
	code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {"apr_1"},
		"decision": {"deny"}, "reason": {"not during the freeze"}})
	if code != http.StatusOK || !strings.Contains(page, "Denied.") {
		t.Fatalf("deny: %d\n%s", code, page)
	}
	if got := f.approvals.Decisions(); len(got) != 1 || got[0] != "apr_1 by user:sec@example.com denied: not during the freeze" {
		t.Errorf("decisions %q", got)
	}
	f.approvals.pending = newFakeApprovals().pending
	f.approvals.pending[0].Principal = "user:sec@example.com"
	if code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {"apr_1"},
		"decision": {"approve"}}); code != http.StatusForbidden || !strings.Contains(page, "your own request") {
		t.Errorf("self-approval: %d\n%s", code, page)
	}
}

// TestForgedPostsChangeNothing: a state-changing post without the
// session's CSRF token, or with another session's, is refused and nothing
// is revoked or decided.
func TestForgedPostsChangeNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b, other := newBrowser(t, f), newBrowser(t, f)
	b.signIn(adminKey)
	_, otherPage := other.signIn(adminKey)
	id := f.chain[0].CapabilityID
	for name, form := range map[string]url.Values{
		"no token":              {"id": {id}},
		"empty token":           {"id": {id}, "csrf": {""}},
		"another session token": {"id": {id}, "csrf": {csrf(t, otherPage)}},
	} {
		if code, _ := b.post("/console/revoke", form); code != http.StatusForbidden {
			t.Errorf("%s: revoke %d, want 403", name, code)
		}
		form.Set("decision", "approve")
		if code, _ := b.post("/console/approvals", form); code != http.StatusForbidden {
			t.Errorf("%s: approve %d, want 403", name, code)
		}
	}
	if state := f.state(t, 2); state != "live" {
		t.Errorf("the grandchild is %s after forged posts", state)
	}
	if len(f.approvals.Decisions()) != 0 {
		t.Errorf("a forged post decided: %v", f.approvals.Decisions())
	}
}

// TestRevokeKillsDescendants: revoking the child through the console
// revokes it and the grandchild, not the root.
func TestRevokeKillsDescendants(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/revoke?id=" + f.chain[1].CapabilityID)
	if !strings.Contains(page, "also revokes 1 descendant.") {
		t.Fatalf("confirm page:\n%s", page)
	}
	code, page := b.post("/console/revoke", url.Values{"csrf": {csrf(t, page)}, "id": {f.chain[1].CapabilityID}})
	if code != http.StatusOK || !strings.Contains(page, "Revoked, with every descendant.") {
		t.Fatalf("revoke: %d\n%s", code, page)
	}
	for i, want := range []string{"live", "revoked", "revoked"} {
		if got := f.state(t, i); got != want {
			t.Errorf("chain[%d] is %s, want %s", i, got, want)
		}
	}
	if _, page := b.get("/console/audit"); !strings.Contains(page, "admin.revoke") || !strings.Contains(page, "3 events, chain intact") {
		t.Errorf("the revocation is not in the audit trail:\n%s", page)
	}
}

// state asks the revocation store about chain[i].
func (f *fixture) state(t *testing.T, i int) string {
	t.Helper()
	c, err := f.verifier.Verify(context.Background(), f.chain[i].Token, captoken.Expected{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.revs.Check(context.Background(), revocation.Query{IDs: c.RevocationIDs(), Principal: c.Principal, IssuedAt: c.IssuedAt.Time()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revoked {
		return "revoked"
	}
	return "live"
}

// TestAuditPageShowsBrokenChain: a changed event is reported at its line.
func TestAuditPageShowsBrokenChain(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	data, err := os.ReadFile(f.auditFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.auditFile, bytes.Replace(data, []byte("quarterly review"), []byte("quarterly reviev"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, f)
	b.signIn(adminKey)
	if _, page := b.get("/console/audit"); !strings.Contains(page, "0 events verified, then broken at line 1") {
		t.Errorf("audit page:\n%s", page)
	}
}
