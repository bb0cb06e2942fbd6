package console_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/policy"
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

// actionField finds the action hash a decision form carries.
var actionField = regexp.MustCompile(`name="action" value="(sha256:[0-9a-f]{64})"`)

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
		"/console/revoke?id=" + f.chain[0].CapabilityID:    "also revokes 2 live descendants",
		"/console/policy":                                  "Revision in force",
		"/console/policy?principal=user:alice@example.com&groups=finance&agent=documents&grants=documents:read&collection=reports": "documents:read",
		"/console/audit": "2 events, chain intact",
	} {
		code, page := b.get(path)
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("%s: %d, want %q in\n%s", path, code, want, page)
		}
		for _, rec := range f.chain {
			if strings.Contains(page, rec.Token.String()) || strings.Contains(page, secretResource) {
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

// TestApproverSeesApprovalsOnly: an approver the policy names (group
// security), without being an admin or listed in the console's config,
// enters, sees the approvals page only and decides carol's request with a
// reason, as themself.
func TestApproverSeesApprovalsOnly(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	code, page := b.signIn(approverKey)
	if code != http.StatusOK || !strings.Contains(page, "fix the parental leave section") || strings.Contains(page, "/console/audit") {
		t.Fatalf("approver after sign-in: %d\n%s", code, page)
	}
	for _, p := range []string{"/console/capabilities", "/console/policy", "/console/audit", "/console/revoke?id=" + f.chain[0].CapabilityID} {
		if code, _ := b.get(p); code != http.StatusForbidden {
			t.Errorf("approver on %s: %d, want 403", p, code)
		}
	}
	if code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {f.pending},
		"decision": {"deny"}, "reason": {"  "}}); code != http.StatusBadRequest || !strings.Contains(page, "Give a reason") {
		t.Errorf("deny without a reason: %d\n%s", code, page)
	}
	if code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {f.pending}, "action": {"sha256:00"},
		"decision": {"deny"}, "reason": {"not during the freeze"}}); code != http.StatusConflict || !strings.Contains(page, "another action than the one this page showed you") {
		t.Errorf("deciding on another action hash: %d\n%s", code, page)
	}
	if got := f.decision(t, f.pending); got != "pending" {
		t.Fatalf("decided on another action hash: %s", got)
	}
	hash := actionField.FindStringSubmatch(page)
	if hash == nil {
		t.Fatalf("no action hash in the form:\n%s", page)
	}
	code, page = b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {f.pending}, "action": {hash[1]},
		"decision": {"deny"}, "reason": {"not during the freeze"}})
	if code != http.StatusOK || !strings.Contains(page, "Denied.") || strings.Contains(page, `id="`+f.pending+`"`) ||
		!strings.Contains(page, `<tr id="h-`+f.pending+`" class="outcome-denied">`) || !strings.Contains(page, "not during the freeze") {
		t.Fatalf("deny: %d\n%s", code, page)
	}
	if got := f.decision(t, f.pending); got != "denied by user:sec@example.com: not during the freeze" {
		t.Errorf("decision %q", got)
	}
	if code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {f.pending},
		"decision": {"approve"}, "reason": {"changed my mind"}}); code != http.StatusConflict || !strings.Contains(page, "already decided") {
		t.Errorf("deciding twice: %d\n%s", code, page)
	}
}

// TestDecisionRefusals: the store refuses, and the page says why, a
// decision on one's own request and one by an operator the request's rule
// does not name; nothing is decided.
func TestDecisionRefusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{approvers: config.AdminAccess{Groups: []string{"audit"}}})
	own := f.seedApproval(t, "user:sec@example.com")
	for _, tc := range []struct {
		name, key, id, wantText string
		wantCode                int
		wantNote                string
	}{
		{"self-approval", approverKey, own, "cannot decide your own request", http.StatusForbidden, "This is your own request"},
		{"admin who is not an approver", adminKey, f.pending, "not an approver of that request", http.StatusForbidden, "only group security may decide"},
		{"configured approver the rule does not name", auditorKey, f.pending, "not an approver of that request", http.StatusForbidden, ""},
		{"unknown request", approverKey, "apr_nope", "no such request", http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(t, f)
			_, page := b.signIn(tc.key)
			if tc.wantNote != "" && !strings.Contains(page, tc.wantNote) {
				t.Errorf("the page does not warn %q:\n%s", tc.wantNote, page)
			}
			code, page := b.post("/console/approvals", url.Values{"csrf": {csrf(t, page)}, "id": {tc.id},
				"decision": {"approve"}, "reason": {"looks fine"}})
			if code != tc.wantCode || !strings.Contains(page, tc.wantText) {
				t.Errorf("%d, want %d with %q:\n%s", code, tc.wantCode, tc.wantText, page)
			}
		})
	}
	for _, id := range []string{own, f.pending} {
		if got := f.decision(t, id); got != "pending" {
			t.Errorf("%s is %s after refused decisions", id, got)
		}
	}
}

// TestConfiguredApproverSeesOnlyTheirRequests: an approver listed in the
// console's config but named by no rule of the request enters and sees
// nothing to decide.
func TestConfiguredApproverSeesOnlyTheirRequests(t *testing.T) {
	f := newFixture(t, fixtureOptions{approvers: config.AdminAccess{Principals: []string{"user:auditor@example.com"}}})
	code, page := newBrowser(t, f).signIn(auditorKey)
	if code != http.StatusOK || !strings.Contains(page, "Nothing is waiting for approval.") {
		t.Fatalf("configured approver: %d\n%s", code, page)
	}
	if code, _ := newBrowser(t, newFixture(t, fixtureOptions{})).signIn(auditorKey); code != http.StatusForbidden {
		t.Errorf("an operator neither configured nor named by the policy entered: %d", code)
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
		form.Set("reason", "forged")
		form.Set("id", f.pending)
		if code, _ := b.post("/console/approvals", form); code != http.StatusForbidden {
			t.Errorf("%s: approve %d, want 403", name, code)
		}
	}
	if state := f.state(t, 2); state != "live" {
		t.Errorf("the grandchild is %s after forged posts", state)
	}
	if got := f.decision(t, f.pending); got != "pending" {
		t.Errorf("a forged post decided: %s", got)
	}
}

// TestRevokeKillsDescendants: revoking the child through the console
// revokes it and the grandchild, not the root.
func TestRevokeKillsDescendants(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/revoke?id=" + f.chain[1].CapabilityID)
	if !strings.Contains(page, "also revokes 1 live descendant.") {
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
	c, err := f.verifier.VerifyPacked(context.Background(), f.chain[i].Token, captoken.Expected{})
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
	if _, page := b.get("/console/audit"); !strings.Contains(page, "chain broken at position 1, after 0 events verified") {
		t.Errorf("audit page:\n%s", page)
	}
}

// TestApprovalsPageFiltersBeforeLimit: a flood of newer requests that an
// approver may not decide never pushes carol's request off their page;
// an admin, who sees them all, is told that more wait than the page
// shows.
func TestApprovalsPageFiltersBeforeLimit(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for i := range 210 {
		if _, err := f.approvals.Create(context.Background(), approval.Request{
			Principal: fmt.Sprintf("user:flood%d@example.com", i%11), Agent: "documents", Purpose: fmt.Sprint("flood ", i),
			Wait: time.Hour, Grants: []approval.Grant{{Grant: "documents:read", Operations: []string{"read"}, TTL: time.Minute,
				Approvers: &policy.Approvers{Groups: []string{"finance"}}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	code, page := newBrowser(t, f).signIn(approverKey)
	if code != http.StatusOK || !strings.Contains(page, `id="`+f.pending+`"`) || strings.Contains(page, "flood") || strings.Contains(page, `id="truncated"`) {
		t.Fatalf("approver's page after the flood: %d\n%s", code, page)
	}
	b := newBrowser(t, f)
	b.signIn(adminKey)
	code, page = b.get("/console/approvals")
	if code != http.StatusOK || !strings.Contains(page, `id="truncated"`) || strings.Count(page, `class="card approval"`) != 200 {
		t.Fatalf("admin's page: %d, %d requests shown\n%.2000s", code, strings.Count(page, `class="card approval"`), page)
	}
}

// TestRootRedirectsToConsole: a browser that opens the admin listener's
// root lands on the console, not on an API error.
func TestRootRedirectsToConsole(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(f.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/" {
		t.Fatalf("GET /: %d %q, want a redirect to /console/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, page := newBrowser(t, f).get("/"); code != http.StatusOK || !strings.Contains(page, "Sign in") {
		t.Fatalf("following it: %d\n%s", code, page)
	}
	// The gateway's admin listener mounts it; the API keeps its routes.
	w := startWorld(t)
	resp, err = client.Get(w.AdminURL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/" {
		t.Fatalf("GET / on the admin listener: %d %q, want a redirect to /console/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, err = client.Get(w.AdminURL + "/admin/policy"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /admin/policy without credentials: %d, want 401", resp.StatusCode)
	}
}
