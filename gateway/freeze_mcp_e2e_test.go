package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capgate/capgate/gateway/config"
)

// TestFreezeStopsUnscopedMCPCalls: a freeze of an MCP server, or of the
// principal calling it, stops the calls that present no capability too:
// initialize, ping and tools/list are refused capability_revoked with
// data.detail "frozen", and the server sees none of them.
func TestFreezeStopsUnscopedMCPCalls(t *testing.T) {
	files := &mcpFiles{}
	target, err := url.Parse(files.serve(t))
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(target)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	h := newHarness(t, nil, func(c *config.Config) { c.MCPServers[0].URL = counting.URL })
	adm := h.admin(t)
	init := map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "c", "version": "1"}}
	calls := []struct {
		method string
		params any
	}{{"initialize", init}, {"ping", map[string]any{}}, {"tools/list", map[string]any{}}}
	for _, c := range calls {
		if r := h.mcpRPC("alice-dev-key", c.method, c.params); r.Error != nil {
			t.Fatalf("%s before the freeze: %+v", c.method, r.Error)
		}
	}
	for _, freeze := range []string{`{"kind":"agent","name":"files","reason":"compromised"}`,
		`{"kind":"principal","name":"` + alicePrincipal + `","reason":"laptop stolen"}`} {
		if code, out := adminCall(t, adm, "POST", "/admin/freeze", "admin-dev-key", freeze); code != 200 {
			t.Fatalf("freeze %s: %d %v", freeze, code, out)
		}
		before := seen.Load()
		for _, c := range calls {
			r := h.mcpRPC("alice-dev-key", c.method, c.params)
			wantCode(t, r, -32043, "capability_revoked")
			if r.Error.Data["detail"] != "frozen" {
				t.Fatalf("%s under %s: detail %v, want frozen", c.method, freeze, r.Error.Data["detail"])
			}
		}
		if seen.Load() != before {
			t.Fatalf("under %s a refused call reached the frozen server", freeze)
		}
		if code, out := adminCall(t, adm, "POST", "/admin/unfreeze", "admin-dev-key",
			strings.Replace(freeze, `"reason":"`, `"reason":"lifted `, 1)); code != 200 {
			t.Fatalf("unfreeze: %d %v", code, out)
		}
	}
}
