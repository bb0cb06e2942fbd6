package console_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/policy"
)

// TestSignOutInBrowser signs an admin in with Chromium, on an approvals
// page holding more requests than it shows (it says so), keeps a copy of
// the session cookie (Secure and HttpOnly), signs out with the page's
// button, and replays the copy: it opens nothing, and the browser is
// back at the sign-in form.
func TestSignOutInBrowser(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for i := range 205 {
		if _, err := f.approvals.Create(context.Background(), approval.Request{
			Principal: fmt.Sprintf("user:p%d@example.com", i%11), Agent: "documents", Purpose: fmt.Sprint("quarter close, batch ", i),
			Wait: time.Hour, Grants: []approval.Grant{{Grant: "documents:read", Rule: "finance-read", Operations: []string{"read"}, TTL: 15 * time.Minute,
				Resources: []policy.Resource{{ID: "r", DisplayName: "Q1 report"}}, Approvers: &policy.Approvers{Groups: []string{"finance"}}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := newChromium(t)
	base := f.srv.URL
	signIn(t, ctx, base, adminKey)
	// The page is long: load it whole (Navigate waits for its load event)
	// before reading it, so that no node read goes away under the parser.
	run(t, ctx, "approvals page", chromedp.Navigate(base+"/console/approvals"), chromedp.WaitVisible(chromedp.CSS("#truncated")))
	if text := textOf(t, ctx, "#truncated"); !strings.Contains(text, "these are the newest 200") {
		t.Errorf("truncation notice: %q", text)
	}
	if path := os.Getenv("CAPGATE_LOOK"); path != "" { // a viewport capture to look at
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err == nil {
			err = os.WriteFile(path, buf, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cookies, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]*network.Cookie, error) {
		res, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/console/"}})
		return res.Cookies, err
	})
	if err != nil {
		t.Fatal(err)
	}
	var kept *http.Cookie
	for _, c := range cookies {
		if c.Name == "capgate_console" {
			if !c.Secure || !c.HTTPOnly {
				t.Errorf("session cookie %+v: want Secure and HttpOnly", c)
			}
			kept = &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	if kept == nil {
		t.Fatalf("no session cookie among %d", len(cookies))
	}
	if code, _ := replay(t, http.MethodGet, base, "/console/approvals", nil, kept); code != http.StatusOK {
		t.Fatalf("the copy before sign-out: %d", code)
	}
	signOut(t, ctx, base)
	if code, loc := replay(t, http.MethodGet, base, "/console/approvals", nil, kept); code != http.StatusSeeOther || loc != "/console/login" {
		t.Errorf("the copy after sign-out: %d %q, want a redirect to sign in", code, loc)
	}
	run(t, ctx, "back after sign-out", chromedp.Navigate(base+"/console/capabilities"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)))
}
