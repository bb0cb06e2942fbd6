package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenWidths are the window widths every page is shot at: a laptop, and
// a narrow window or tablet.
var screenWidths = []int64{1280, 800}

// TestScreenshots opens every console page in Chromium at each of
// screenWidths, checks that no page is wider than the window (nothing
// clipped or pushed off to the right), and with -update writes
// testdata/screenshots/<page>-<width>.png.
func TestScreenshots(t *testing.T) {
	f := newFixture(t, fixtureOptions{shadow: narrowedCandidate(t)})
	writeDisagreements(t, f, "user:alice@example.com", "user:erin@example.com")
	ctx := newChromium(t)
	base := f.srv.URL
	explain := url.Values{"principal": {"user:carol@example.com"}, "groups": {"hr, editors"}, "agent": {"documents"},
		"grants": {"documents:read, documents:write"}, "collection": {"hr"}, "purpose": {"fix the parental leave section"}}
	pages := []struct{ name, path, ready string }{
		{"login", "/console/login", `input[name="key"]`},
		{"approvals", "/console/approvals", `section.approval`},
		{"capabilities", "/console/capabilities", `ul.delegation`},
		{"capability", "/console/capability?id=" + f.chain[1].CapabilityID, `#descendants`},
		{"policy", "/console/policy?" + explain.Encode(), `#decision`},
		{"capability-revoked", "/console/capability?id=" + f.chain[2].CapabilityID, `#ended`},
		{"capabilities-after-revoke", "/console/capabilities", `#count`},
		{"forbidden", "/console/revoke", `p.error`},
		{"audit", "/console/audit", `#chain`},
		{"freeze", "/console/freeze", `#frozen`},
		{"shadow", "/console/shadow", `#disagreements`},
	}
	for i, p := range pages {
		switch p.name {
		case "approvals":
			run(t, ctx, "sign in", chromedp.SendKeys(chromedp.CSS(`input[name="key"]`), adminKey),
				chromedp.Click(chromedp.CSS(`form button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(`section.approval`)))
		case "capability-revoked":
			run(t, ctx, "revoke the child", chromedp.Navigate(base+"/console/capability?id="+f.chain[1].CapabilityID),
				chromedp.Click(chromedp.CSS(`form[action="/console/revoke"] button`)), chromedp.WaitVisible(chromedp.CSS(`p.done`)))
		case "freeze":
			run(t, ctx, "freeze an agent", chromedp.Navigate(base+"/console/freeze"),
				chromedp.SendKeys(chromedp.CSS(`form[action="/console/freeze"] input[name="name"]`), "extra"),
				chromedp.SendKeys(chromedp.CSS(`form[action="/console/freeze"] input[name="reason"]`), "incident 7: leaking summaries"),
				chromedp.Click(chromedp.CSS(`form[action="/console/freeze"] button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(`#frozen`)))
		case "forbidden":
			// A forged post without its CSRF token lands on the error page.
			evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				fmt.Fprintf(w, `<!doctype html><form method="post" action="%s/console/revoke">`+
					`<input name="id" value="%s"></form><script>document.forms[0].submit()</script>`, base, f.chain[0].CapabilityID)
			}))
			defer evil.Close()
			run(t, ctx, "forged post", chromedp.Navigate(evil.URL), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
			p.path = ""
		}
		for _, w := range screenWidths {
			actions := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(w, 900)}
			if p.path != "" {
				actions = append(actions, chromedp.Navigate(base+p.path))
			}
			run(t, ctx, fmt.Sprintf("%s at %d", p.name, w), append(actions, chromedp.WaitVisible(chromedp.CSS(p.ready)))...)
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide > w {
				t.Errorf("%s at %d px is %d px wide", p.name, w, wide)
			}
			screenshot(t, ctx, fmt.Sprintf("%02d-%s-%d", i+1, p.name, w))
		}
		if p.name == "forbidden" {
			if text := textOf(t, ctx, `p.error`); !strings.Contains(text, "CSRF") {
				t.Errorf("the error page says %q", text)
			}
		}
	}
}
