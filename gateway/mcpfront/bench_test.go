package mcpfront_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/mcpfront"
)

// fixedToolResult is the bench upstream's answer to every call: a
// one-text CallToolResult naming the real id the capability covers.
const fixedToolResult = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"corpus/q1-report.md: ok"}],"isError":false}}`

// BenchmarkToolsCall is one tools/call of read_file through the front's
// handler on its full path: dev-key authentication, strict decode, the
// capability taken out of params._meta, verified (by id and token, the
// verified-claims cache warm, as the gateway runs it), holder,
// revocation, operation, the resource argument's handle checked and
// rewritten, the audit event, the proxy hop over loopback and the answer
// through the id mapping. The upstream answers a fixed result, so that
// the front's share dominates.
func BenchmarkToolsCall(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, fixedToolResult)
	}))
	b.Cleanup(up.Close)
	w := newWorldWith(b, "", func(s *config.MCPServer, d *mcpfront.Deps) {
		s.URL = up.URL
		v, err := captoken.NewVerifier(d.Keys, captoken.VerifierConfig{Issuer: "capgate",
			Algorithms: []jose.SignatureAlgorithm{jose.EdDSA}, CacheSize: 1000})
		if err != nil {
			b.Fatal(err)
		}
		d.Verifier = v
	})
	c := w.mint(b, alice, []string{"read"}, "corpus/q1-report.md")
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file",`+
		`"arguments":{"path":%q},"_meta":{"dev.capgate/capability":{"capabilityId":%q,"capabilityToken":%q}}}}`,
		c.handles[0], c.id, c.token)
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/mcp/files", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+aliceKey)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		w.handler.ServeHTTP(rec, r)
		if got := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(got, c.handles[0]) || strings.Contains(got, "corpus/") {
			b.Fatalf("tools/call: %d %s", rec.Code, got)
		}
	}
}
