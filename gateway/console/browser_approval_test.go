package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
)

// erinKey is a quickstart principal added for this test: in hr and
// editors (so her HR writes wait for approval) and in security (so she is
// an approver herself).
const erinKey = "erin-console-key"

// hrWrite is the quickstart request that waits for group security.
var hrWrite = map[string]any{
	"grants": []string{"documents:read", "documents:write"}, "purpose": "Update the 2025 salary bands",
	"resourceQuery": map[string]any{"collection": "hr"},
}

// rpcAnswer is a JSON-RPC response as the caller reads it.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// rpc calls the documents agent through the world's gateway as key.
func rpc(t *testing.T, w *quickstart.World, key, method string, params any) rpcAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/a2a/documents", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var a rpcAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v: %s", method, err, raw)
	}
	return a
}

// askHRWrite asks for the HR write as key and returns the approval id.
func askHRWrite(t *testing.T, w *quickstart.World, key string) string {
	t.Helper()
	a := rpc(t, w, key, "a2a/capabilities/request", hrWrite)
	var p struct{ Status, ApprovalID string }
	if a.Error != nil || json.Unmarshal(a.Result, &p) != nil || p.Status != "pending" || p.ApprovalID == "" {
		t.Fatalf("want a pending answer, got %s %+v", a.Result, a.Error)
	}
	return p.ApprovalID
}

// startWorld runs the quickstart world (gateway, agents, admin listener
// with the console) with erin added.
func startWorld(t *testing.T) *quickstart.World {
	t.Helper()
	w, err := quickstart.Start(context.Background(), quickstart.Options{Configure: func(c *config.Config) {
		c.DevKeys = append(c.DevKeys, authn.DevKey{Hash: authn.HashKey(erinKey), Principal: "user:erin@example.com",
			Groups: []string{"hr", "editors", "security"}})
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestApprovalsInBrowser drives the approvals page in Chromium against a
// real gateway: carol's HR write, asked through a2a/capabilities/request,
// waits; an admin who is not an approver is refused; dave, an approver by
// the policy alone, signs in, sees only the approvals page, approves with
// a reason, and carol redeems and uses the capability; a second request
// denied with a reason reaches carol as -32047 with the reason in data;
// erin cannot approve her own request.
func TestApprovalsInBrowser(t *testing.T) {
	w := startWorld(t)
	ctx := newChromium(t)
	carols, erins := askHRWrite(t, w, quickstart.CarolKey), askHRWrite(t, w, erinKey)

	refusedInBrowser(t, ctx, w, quickstart.AdminKey, carols)

	signIn(t, ctx, w.AdminURL, quickstart.DaveKey)
	if nav := textOf(t, ctx, `header nav`); strings.Contains(nav, "Live capabilities") || strings.Contains(nav, "Audit") {
		t.Errorf("an approver sees the admin pages in the menu: %q", nav)
	}
	text := textOf(t, ctx, "#"+carols)
	for _, want := range []string{"user:carol@example.com", "Update the 2025 salary bands", "Salaries 2025", "documents:write", "hr-editors-write-needs-approval", "group security"} {
		if !strings.Contains(text, want) {
			t.Errorf("the request does not show %q: %q", want, text)
		}
	}
	if got := textOf(t, ctx, "#"+carols+" dl.grant.trigger"); !strings.Contains(got, "documents:write") || !strings.Contains(got, "needs approval by group security") || !strings.Contains(got, "15 min") {
		t.Errorf("the grant that needs approval is not marked, or its lifetime not for people: %q", got)
	}
	if n := count(t, ctx, "#"+carols+" dl.grant"); n != 2 || count(t, ctx, "#"+carols+" dl.grant.trigger") != 1 {
		t.Errorf("%d grants shown, want read (riding along) and write (marked)", n)
	}
	if got, want := textOf(t, ctx, "#"+carols+" dd.hash code"), actionHash(t, w, carols); got != want || !strings.HasPrefix(got, "sha256:") {
		t.Errorf("the page shows action hash %q, the admin API %q", got, want)
	}
	screenshot(t, ctx, "approvals")
	decideInBrowser(t, ctx, carols, "approve", "change ticket SEC-1024")
	if text := textOf(t, ctx, `p.done`); text != "Approved." {
		t.Fatalf("after approving: %q", text)
	}
	wantStatus(t, w, carols, "approved", "change ticket SEC-1024")
	redeemAndUse(t, w, carols)
	wantStatus(t, w, carols, "redeemed", "change ticket SEC-1024")

	denied := askHRWrite(t, w, quickstart.CarolKey)
	run(t, ctx, "reload", chromedp.Navigate(w.AdminURL+"/console/approvals"), chromedp.WaitVisible(chromedp.CSS("#"+denied)))
	decideInBrowser(t, ctx, denied, "deny", "no change ticket")
	wantStatus(t, w, denied, "denied", "no change ticket")
	a := rpc(t, w, quickstart.CarolKey, "a2a/capabilities/request", map[string]any{"approvalId": denied})
	if a.Error == nil || a.Error.Code != -32047 || a.Error.Data["approverReason"] != "no change ticket" || a.Error.Data["deniedBy"] != "user:dave@example.com" {
		t.Fatalf("the denial reached carol as %s %+v", a.Result, a.Error)
	}
	run(t, ctx, "history", chromedp.Navigate(w.AdminURL+"/console/approvals"), chromedp.WaitVisible(chromedp.CSS("#history")))
	for id, want := range map[string][]string{
		carols: {"redeemed", "user:dave@example.com", "change ticket SEC-1024", "documents:write", "Salaries 2025", "15 min"},
		denied: {"denied", "user:dave@example.com", "no change ticket"},
	} {
		row := textOf(t, ctx, "#h-"+id)
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("history row of %s lacks %q: %q", id, w, row)
			}
		}
	}
	if n := count(t, ctx, "#history form, #history button"); n != 0 {
		t.Errorf("the history offers %d forms or buttons", n)
	}
	screenshot(t, ctx, "approvals-history")
	run(t, ctx, "narrow window", chromedp.EmulateViewport(800, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#history")))
	if wide := scrollWidth(t, ctx); wide > 800 {
		t.Errorf("at 800 px the approvals page is %d px wide", wide)
	}
	screenshot(t, ctx, "approvals-history-800")
	run(t, ctx, "wide window", chromedp.EmulateViewport(1280, 900))
	run(t, ctx, "admin page", chromedp.Navigate(w.AdminURL+"/console/capabilities"), chromedp.WaitVisible(chromedp.CSS(`p.error, main`)))
	if text := textOf(t, ctx, `main`); !strings.Contains(text, "approvers see the approvals page only") {
		t.Errorf("an approver on the capabilities page saw %q", text)
	}
	signOut(t, ctx, w.AdminURL)

	refusedInBrowser(t, ctx, w, erinKey, erins)
	if a := rpc(t, w, erinKey, "a2a/capabilities/request", map[string]any{"approvalId": erins}); a.Error != nil || !strings.Contains(string(a.Result), `"pending"`) {
		t.Fatalf("erin's request after her own approval: %s %+v", a.Result, a.Error)
	}
}

// refusedInBrowser signs in with key and sees request id with a note
// saying why they cannot decide it and no Approve or Deny button; then
// signs out. That the server refuses such a decision all the same is
// TestDecisionRefusals'.
func refusedInBrowser(t *testing.T, ctx context.Context, w *quickstart.World, key, id string) {
	t.Helper()
	signIn(t, ctx, w.AdminURL, key)
	if note := textOf(t, ctx, "#"+id+" p.note"); note == "" {
		t.Errorf("request %s carries no note for %s", id, key)
	}
	if n := count(t, ctx, "#"+id+" form.decide, #"+id+" button"); n != 0 {
		t.Errorf("%s, who may not decide %s, is offered %d forms and buttons to", key, id, n)
	}
	signOut(t, ctx, w.AdminURL)
}

// scrollWidth returns how wide the page is laid out.
func scrollWidth(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth"))
	if err != nil {
		t.Fatalf("page width: %v", err)
	}
	return n
}

// count returns how many elements match sel on the page.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll("+strconv.Quote(sel)+").length"))
	if err != nil {
		t.Fatalf("counting %s: %v", sel, err)
	}
	return n
}

// actionHash returns the action hash the admin API lists for request id.
func actionHash(t *testing.T, w *quickstart.World, id string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.AdminURL+"/admin/approvals/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+quickstart.DaveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ ActionHash string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin/approvals/%s: %d %v", id, resp.StatusCode, err)
	}
	return r.ActionHash
}

// wantStatus checks carol's request id with the status method.
func wantStatus(t *testing.T, w *quickstart.World, id, status, reason string) {
	t.Helper()
	a := rpc(t, w, quickstart.CarolKey, "a2a/capabilities/approval/status", map[string]any{"approvalId": id})
	var st struct{ Status, ApprovalID, Reason string }
	if a.Error != nil || json.Unmarshal(a.Result, &st) != nil || st != (struct{ Status, ApprovalID, Reason string }{status, id, reason}) {
		t.Fatalf("status of %s: %s %+v, want %s %q", id, a.Result, a.Error, status, reason)
	}
}

// redeemAndUse has carol redeem her approved request, receive read and
// write on the HR documents, and update one with the write capability.
func redeemAndUse(t *testing.T, w *quickstart.World, id string) {
	t.Helper()
	a := rpc(t, w, quickstart.CarolKey, "a2a/capabilities/request", map[string]any{"approvalId": id})
	var res struct {
		Capabilities []struct {
			ID, Grant       string
			ResourceHandles []struct{ Handle, DisplayName string }
		}
	}
	if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || len(res.Capabilities) != 2 || res.Capabilities[1].Grant != "documents:write" {
		t.Fatalf("redeeming the approval: %s %+v", a.Result, a.Error)
	}
	write := res.Capabilities[1]
	var handle string
	for _, h := range write.ResourceHandles {
		if h.DisplayName == "Salaries 2025" {
			handle = h.Handle
		}
	}
	a = rpc(t, w, quickstart.CarolKey, "a2a/skill/invoke", map[string]any{"skill": "update_document", "capabilityId": write.ID,
		"arguments": map[string]any{"resourceHandle": handle, "content": "2025 salary bands, revised"}})
	if a.Error != nil {
		t.Fatalf("using the approved capability: %+v", a.Error)
	}
}

// signIn signs in on the console's login page with a dev key.
func signIn(t *testing.T, ctx context.Context, base, key string) {
	t.Helper()
	run(t, ctx, "sign in",
		chromedp.Navigate(base+"/console/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name="key"]`), key),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.who`)))
}

// signOut signs out from the approvals page.
func signOut(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	run(t, ctx, "sign out", chromedp.Navigate(base+"/console/approvals"), chromedp.Click(chromedp.CSS(`form.who button`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)))
}

// decideInBrowser types a reason into request id's form and clicks
// approve or deny, then waits for the page's answer.
func decideInBrowser(t *testing.T, ctx context.Context, id, decision, reason string) {
	t.Helper()
	form := "#" + id + " form.decide"
	run(t, ctx, decision+" "+id,
		chromedp.WaitVisible(chromedp.CSS(form)),
		chromedp.SendKeys(chromedp.CSS(form+` input[name="reason"]`), reason),
		chromedp.Click(chromedp.CSS(form+" button."+decision)),
		chromedp.WaitVisible(chromedp.CSS(`p.done, p.error`)))
}
