package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCapabilitiesShowOnlyLive: each node names its capability id,
// purpose and resources by display name; once the child is revoked the
// page lists only the live root, counts it right and says how many
// ended; the revoked capability's page offers no Revoke.
func TestCapabilitiesShowOnlyLive(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f)
	b.signIn(adminKey)
	_, page := b.get("/console/capabilities")
	for _, want := range []string{f.chain[0].CapabilityID, f.chain[2].CapabilityID, "quarterly review", "Q1 report",
		"3 live capabilities."} {
		if !strings.Contains(page, want) {
			t.Errorf("the capabilities page lacks %q", want)
		}
	}
	_, page = b.get("/console/capability?id=" + f.chain[1].CapabilityID)
	if code, _ := b.post("/console/revoke", url.Values{"csrf": {csrf(t, page)}, "id": {f.chain[1].CapabilityID}}); code != http.StatusOK {
		t.Fatalf("revoke: %d", code)
	}
	_, page = b.get("/console/capabilities")
	if !strings.Contains(page, "1 live capability.") || !strings.Contains(page, "2 revoked or expired are not shown.") {
		t.Errorf("the count after revoking the child is wrong:\n%s", page)
	}
	for _, gone := range f.chain[1:] {
		if strings.Contains(page, gone.CapabilityID) {
			t.Errorf("revoked capability %s is listed as live", gone.CapabilityID)
		}
	}
	for _, tc := range []struct {
		id         string
		revocable  bool
		wantInPage string
	}{
		{f.chain[0].CapabilityID, true, "also revokes 0 live descendants"},
		{f.chain[1].CapabilityID, false, "revoked already"},
		{f.chain[2].CapabilityID, false, "revoked already"},
	} {
		code, page := b.get("/console/capability?id=" + tc.id)
		if code != http.StatusOK || !strings.Contains(page, tc.wantInPage) {
			t.Errorf("%s: %d, want %q in\n%s", tc.id, code, tc.wantInPage, page)
		}
		if got := strings.Contains(page, `action="/console/revoke"`); got != tc.revocable {
			t.Errorf("%s: Revoke offered = %v, want %v", tc.id, got, tc.revocable)
		}
	}
}

// TestCapabilitiesMarkMCP: a capability whose audience is a configured
// MCP server is marked MCP in the tree and on its page; with no such
// server configured, nothing is.
func TestCapabilitiesMarkMCP(t *testing.T) {
	for _, tt := range []struct {
		name    string
		servers []string
		want    bool
	}{
		{"documents is an MCP server", []string{"files", "documents"}, true},
		{"no MCP server", nil, false},
		{"another MCP server", []string{"files"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{mcpServers: tt.servers})
			b := newBrowser(t, f)
			b.signIn(adminKey)
			_, list := b.get("/console/capabilities")
			_, one := b.get("/console/capability?id=" + f.chain[0].CapabilityID)
			if got := strings.Contains(list, `<span class="badge">MCP</span>`); got != tt.want {
				t.Errorf("tree marked MCP = %v, want %v", got, tt.want)
			}
			if got := strings.Contains(one, "on MCP server <code>documents</code>"); got != tt.want {
				t.Errorf("page marked MCP = %v, want %v", got, tt.want)
			}
		})
	}
}
