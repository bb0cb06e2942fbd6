package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
)

// resolveUpstream answers only the resolution hook, for benchmarks that
// never reach the proxy hop.
func resolveUpstream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"resources":[`+
			`{"id":"reports/q1-financial","collection":"reports","displayName":"Q1 Financial Summary","attributes":{"quarter":"2025-Q1"}},`+
			`{"id":"reports/q1-sales","collection":"reports","displayName":"Q1 Sales Report","attributes":{"quarter":"2025-Q1"}}]}}`)
	})
}

func benchGateway(b *testing.B) (*Built, *authn.Principal, *agent) {
	b.Helper()
	up := httptest.NewServer(resolveUpstream())
	b.Cleanup(up.Close)
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
agents:
  - name: documents
    url: %s/
    grants:
      - {id: "documents:read", operations: [retrieve, search, list], attenuable: true}
      - {id: "documents:write", operations: [create, update, delete], attenuable: true, requires: ["documents:read"]}
      - {id: "documents:admin", operations: ["*"], attenuable: false, legacy: true}
    skills: {retrieve_document: retrieve, search_documents: search, list_documents: list, update_document: update, delete_document: delete}
  - name: summarizer
    url: %s/
    principal: agent:summarizer
a2e_hosts: [{name: lab, url: "http://127.0.0.1:9/", capabilities: [tools, memory, env], auth_token_env: LAB_TOKEN}]
dev_keys:
  - {hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com", groups: [finance]}
policy: {file: ../deploy/examples/quickstart/policy.yaml}
`, up.URL, up.URL)), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	gw, err := FromConfig(context.Background(), cfg, BuildOptions{Getenv: func(string) string { return "lab-secret" }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { gw.Close() })
	p, err := gw.authn.AuthenticateToken(context.Background(), "alice-dev-key")
	if err != nil {
		b.Fatal(err)
	}
	return gw, p, gw.agents["documents"]
}

func benchCall(b *testing.B, gw *Built, p *authn.Principal, a *agent, body string) *call {
	b.Helper()
	reqs, _, err := jsonrpc.Decode([]byte(body), gw.limits)
	if err != nil {
		b.Fatal(err)
	}
	return &call{agent: a, principal: p, req: reqs[0], http: httptest.NewRequest("POST", "/a2a/documents", nil)}
}

// BenchmarkInvokeCheck is the whole decision of an a2a/skill/invoke,
// excluding the proxy hop: dev-key authentication, one JSON decode, the
// capability (verified-claims cache warm), holder, revocation, operation
// and handle checks, and the rewrite of the forwarded body.
func BenchmarkInvokeCheck(b *testing.B) {
	for _, withToken := range []bool{false, true} {
		b.Run(fmt.Sprintf("token=%v", withToken), func(b *testing.B) {
			gw, p, a := benchGateway(b)
			ctx := context.Background()
			out := gw.decide(ctx, benchCall(b, gw, p, a, `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`))
			var res capabilitiesResult
			raw, _ := json.Marshal(out.resp.Result)
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Capabilities) != 1 {
				b.Fatalf("issuance failed: %+v", out.resp)
			}
			c := res.Capabilities[0]
			params := fmt.Sprintf(`{"skill":"retrieve_document","capabilityId":%q,"arguments":{"resourceHandle":%q}}`, c.ID, c.ResourceHandles[0].Handle)
			if withToken {
				params = strings.Replace(params, `"skill"`, fmt.Sprintf(`"capabilityToken":%q,"skill"`, c.Token), 1)
			}
			body := []byte(`{"jsonrpc":"2.0","id":2,"method":"a2a/skill/invoke","params":` + params + `}`)
			hr := httptest.NewRequest("POST", "/a2a/documents", nil)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				pr, err := gw.authn.AuthenticateToken(ctx, "alice-dev-key")
				if err != nil {
					b.Fatal(err)
				}
				reqs, _, err := jsonrpc.Decode(body, gw.limits)
				if err != nil {
					b.Fatal(err)
				}
				if o := gw.decide(ctx, &call{agent: a, principal: pr, req: reqs[0], http: hr}); o.forward == nil {
					b.Fatalf("refused: %+v", o.resp)
				}
			}
		})
	}
}

// BenchmarkIssue is one a2a/capabilities/request decision with the
// resolution hook over loopback HTTP.
func BenchmarkIssue(b *testing.B) {
	gw, p, a := benchGateway(b)
	ctx := context.Background()
	c := benchCall(b, gw, p, a, `{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if o := gw.decide(ctx, c); o.resp == nil || o.resp.Error != nil {
			b.Fatalf("refused: %+v", o.resp)
		}
	}
}
