package console_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var update = flag.Bool("update", false, "refresh the screenshots in testdata/screenshots")

// newChromium starts a headless Chromium from Debian's package with a fresh
// profile, or skips the test when it is absent (fails under CI).
func newChromium(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs it with apt-get install chromium")
		}
		t.Skip("chromium is not installed (apt-get install chromium): skipping the console's browser test")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// TestConsoleInBrowser drives the console in Chromium as an admin: sign
// in, see the delegation tree, survive a forged cross-origin post, revoke
// with the descendants count shown first, and read the audit page. The
// approvals page is driven on a real gateway by TestApprovalsInBrowser.
func TestConsoleInBrowser(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx := newChromium(t)
	base := f.srv.URL
	run(t, ctx, "sign in",
		chromedp.Navigate(base+"/console/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name="key"]`), adminKey),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`section.approval`)))
	text := textOf(t, ctx, `section.approval`)
	if !strings.Contains(text, "fix the parental leave section") || !strings.Contains(text, "HR handbook") {
		t.Fatalf("the pending request is not shown: %q", text)
	}
	run(t, ctx, "see the tree",
		chromedp.Navigate(base+"/console/capabilities"),
		chromedp.WaitVisible(chromedp.CSS(`ul.delegation`)))
	text = textOf(t, ctx, `section.tree`)
	for _, want := range []string{"user:alice@example.com", "agent:summarizer", "agent:helper", "depth 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the tree does not show %q: %q", want, text)
		}
	}
	forgedPost(t, ctx, f)
	run(t, ctx, "revoke",
		chromedp.Click(chromedp.CSS(`ul.delegation a.node`)),
		chromedp.WaitVisible(chromedp.CSS(`#descendants`)))
	text = textOf(t, ctx, `#descendants`)
	if !strings.Contains(text, "2 live descendants") {
		t.Errorf("the confirmation says %q", text)
	}
	run(t, ctx, "confirm", chromedp.Click(chromedp.CSS(`form[action="/console/revoke"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.done`)))
	for i := range f.chain {
		if got := f.state(t, i); got != "revoked" {
			t.Errorf("chain[%d] is %s after revoking the root", i, got)
		}
	}
	run(t, ctx, "audit", chromedp.Navigate(base+"/console/audit"))
	text = textOf(t, ctx, `#chain`)
	if text != "4 events, chain intact" { // two seeded, the forged post refused, the revocation
		t.Errorf("chain status %q", text)
	}
}

// forgedPost has a page on another origin post the revoke form without
// the CSRF token, with the operator's cookies: it must be refused and
// nothing revoked.
func forgedPost(t *testing.T, ctx context.Context, f *fixture) {
	t.Helper()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form method="post" action="%s/console/revoke">`+
			`<input name="id" value="%s"></form><script>document.forms[0].submit()</script>`,
			f.srv.URL, f.chain[1].CapabilityID)
	}))
	defer evil.Close()
	run(t, ctx, "forged post", chromedp.Navigate(evil.URL),
		chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	text := textOf(t, ctx, `p.error`)
	if !strings.Contains(text, "CSRF token is missing") {
		t.Errorf("the forged post got %q", text)
	}
	if got := f.state(t, 1); got != "live" {
		t.Fatalf("a forged post revoked the capability: %s", got)
	}
	run(t, ctx, "back", chromedp.Navigate(f.srv.URL+"/console/capabilities"),
		chromedp.WaitVisible(chromedp.CSS(`ul.delegation`)))
}

func run(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// textOf returns the visible text of the first element matching sel.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return text
}

// screenshot takes the whole page; with -update it refreshes the copy in
// testdata/screenshots.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if _, err := png.Decode(bytes.NewReader(buf)); err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if *update {
		path := filepath.Join("testdata", "screenshots", name+".png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
