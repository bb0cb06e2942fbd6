package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemoServeAuditPage: demo --serve keeps its audit trail in a file,
// named in the banner (--audit FILE, or a temporary one), and the
// console's Audit page shows its events with the chain intact.
func TestDemoServeAuditPage(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "audit.jsonl")
	for name, args := range map[string][]string{
		"temporary file": nil,
		"--audit FILE":   {"--audit", kept},
	} {
		t.Run(name, func(t *testing.T) {
			banner := serveDemo(t, append([]string{"--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, args...)...)
			m := regexp.MustCompile(`(?m)^audit trail: (\S+)`).FindStringSubmatch(banner)
			admin := regexp.MustCompile(`admin API\s+(http://\S+)`).FindStringSubmatch(banner)
			gw := regexp.MustCompile(`metrics\s+(http://\S+)/metrics`).FindStringSubmatch(banner)
			if m == nil || admin == nil || gw == nil || (args != nil && m[1] != kept) {
				t.Fatalf("the banner names no audit file, admin API or gateway:\n%s", banner)
			}
			// One audited call: alice asks for a capability.
			body := `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`
			req, _ := http.NewRequest(http.MethodPost, gw[1]+"/a2a/documents", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer alice-dev-key")
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			} else {
				resp.Body.Close()
			}
			page := consolePage(t, admin[1], "admin-dev-key", "/console/audit")
			if !strings.Contains(page, "capability.issue") || !strings.Contains(page, "chain intact") {
				t.Fatalf("the audit page does not show the trail:\n%s", page)
			}
			if _, err := os.Stat(m[1]); err != nil {
				t.Fatalf("the audit file: %v", err)
			}
		})
	}
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// consolePage signs in to the console at admin with a dev key and
// returns the page at path.
func consolePage(t *testing.T, admin, key, path string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	m := csrfInput.FindStringSubmatch(get(c.Get(admin + "/console/login")))
	if m == nil {
		t.Fatal("no sign-in form")
	}
	get(c.PostForm(admin+"/console/login", url.Values{"csrf": {m[1]}, "key": {key}}))
	return get(c.Get(admin + path))
}
