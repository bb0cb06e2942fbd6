package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/capindex"
)

// Long values a capability box must show whole.
const (
	longName    = "Q1 Financial Summary for the Northern European Region, restated after the audit"
	longPurpose = "prepare the board's quarterly review of regional results and the restatement"
)

// TestTreeBoxesWrap: at both screen widths, a capability with a long
// resource name and purpose is drawn in a box that holds its whole text
// (nothing overflows and is clipped), with its id and expiry intact.
func TestTreeBoxesWrap(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	id := f.seedLong(t)
	ctx := newChromium(t)
	run(t, ctx, "sign in", chromedp.Navigate(f.srv.URL+"/console/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name="key"]`), adminKey),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(`section.approval`)))
	for _, w := range screenWidths {
		run(t, ctx, "capabilities", chromedp.EmulateViewport(w, 900),
			chromedp.Navigate(f.srv.URL+"/console/capabilities?principal=user:erin@example.com"),
			chromedp.WaitVisible(chromedp.CSS(`a.node`)))
		text := textOf(t, ctx, `a.node`)
		for _, want := range []string{longName, longPurpose, id, "until "} {
			if !strings.Contains(text, want) {
				t.Errorf("at %d px the box lacks %q: %q", w, want, text)
			}
		}
		clipped, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll('a.node, a.node *')]`+
			`.some(e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > e.closest('a.node').getBoundingClientRect().right + 1)`))
		if err != nil {
			t.Fatal(err)
		}
		if clipped {
			t.Errorf("at %d px text overflows its box", w)
		}
	}
}

// seedLong indexes a root capability of erin's with a long resource name
// and purpose, and returns its id.
func (f *fixture) seedLong(t *testing.T) string {
	t.Helper()
	now := time.Now().Truncate(time.Second)
	c := captoken.Claims{Issuer: "https://gw.test", Principal: "user:erin@example.com", Holder: "user:erin@example.com",
		Audience: "documents", CapabilityID: captoken.NewCapabilityID(), Grant: "documents:read",
		Operations: []string{"retrieve", "search", "list"}, Handles: []string{"rh_long"},
		Expiry: captoken.NewNumericDate(now.Add(time.Hour)), IssuedAt: captoken.NewNumericDate(now),
		RevocationID: captoken.NewRevocationID(), MaxDepth: 2, Attenuable: true, Purpose: longPurpose}
	tok, err := captoken.Mint(f.keys, c, map[string]string{"rh_long": secretResource})
	if err != nil {
		t.Fatal(err)
	}
	packed, err := captoken.Pack(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.index.Put(context.Background(), capindex.Record{CapabilityID: c.CapabilityID, Token: packed,
		Principal: c.Principal, Holder: c.Holder, Agent: c.Audience, Grant: c.Grant, DisplayNames: []string{longName},
		IssuedAt: c.IssuedAt.Time(), Expires: c.Expiry.Time()}); err != nil {
		t.Fatal(err)
	}
	return c.CapabilityID
}
