package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/authn/oidctest"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
)

const testAudience = "capgate"

// harness is a gateway in front of real upstream servers, with a real
// in-process OIDC issuer serving discovery and JWKS over HTTP.
type harness struct {
	t       *testing.T
	gw      *gateway.Built
	srv     *httptest.Server
	idp     *oidctest.Issuer
	docs    *documents.Agent
	docsSrv *httptest.Server
	cfg     *config.Config
}

func configYAML(docsURL, extraURL, idpURL string) string {
	return fmt.Sprintf(`
listen: {addr: "127.0.0.1:0", drain_delay: 300ms, shutdown_timeout: 5s}
public_url: http://gateway.test
limits: {max_body_bytes: 4096, max_batch: 3, upstream_timeout: 5s}
rate_limits: {disabled: true}  # these tests poll one principal in tight loops
agents:
  - name: documents
    url: %s
    grants:
      - {id: "documents:read", operations: [retrieve, search, list], attenuable: true}
      - {id: "documents:write", operations: [create, update, delete], attenuable: true, requires: ["documents:read"]}
      - {id: "documents:admin", operations: ["*"], attenuable: false, legacy: true}
    skills: {retrieve_document: retrieve, search_documents: search, list_documents: list, update_document: update, delete_document: delete}
  - name: extra
    url: %s
  # The quickstart policy names notes; notes_e2e_test.go fronts the real
  # agent here.
  - name: notes
    url: http://127.0.0.1:9/
    messages: {require_capability: true, operation: read, agent_enforces_operations: true}
    grants:
      - {id: "notes:read", operations: [read], attenuable: true}
      - {id: "notes:write", operations: [write], attenuable: true, requires: ["notes:read"]}
    skills: {notes.read: read, notes.write: write}
# The quickstart policy names the files MCP server too; the MCP tests
# point it at a server of their own.
mcp_servers:
  - name: files
    url: http://127.0.0.1:9/
    principal: agent:files
    grants:
      - {id: "files:read", operations: [read, search], attenuable: true}
      - {id: "files:write", operations: [write], attenuable: true, requires: ["files:read"]}
    tools: {read_file: {operation: read, resources: [/path]}, search_files: {operation: search}, write_file: {operation: write, resources: [/path]}}
a2e_hosts:
  - {name: lab, url: "http://127.0.0.1:9/", capabilities: [tools, memory, env], auth_token_env: LAB_TOKEN}
oidc:
  - {issuer: %q, audience: %s, algorithms: [RS256]}
dev_keys:
  - {hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com", groups: [finance]}
  - {hash: "sha256:20c216c8dc383bbcf06bbbfed5899f72003a4525d7827ee62d67365f616b5d66", principal: "user:bob@example.com", groups: [contractors]}
  - {hash: "sha256:af1c6e770dbd3ef6f82327451ccdec28fb82086c9031c35a5dde664a4e88604e", principal: "user:carol@example.com", groups: [hr, editors]}
  - {hash: "sha256:dce2e5c4af686ed7f70522633ac2b8c566e39089b2293b3835be8e02297b5d80", principal: "agent:summarizer"}
  - {hash: "sha256:de98f63053e418786663e4cc98b39c7fbaf7b747b6ff0e8a8be6adb58e9dabfe", principal: "user:admin@example.com", groups: [capgate-admins]}
  - {hash: "sha256:1b4f020f99075553bd03911a5b03006b9777ae6f2d5b9c4f4b876d6244d7a166", principal: "user:dave@example.com", groups: [security]}
admin_access: {groups: [capgate-admins]}
policy: {file: ../deploy/examples/quickstart/policy.yaml, reload_interval: 50ms}
`, docsURL, extraURL, idpURL, testAudience)
}

// newHarness starts the documents agent and, when extra is not nil, a
// second upstream "extra" served by it.
func newHarness(t *testing.T, extra http.Handler, mod func(*config.Config)) *harness {
	t.Helper()
	return newHarnessWith(t, extra, mod, nil)
}

// newHarnessWith is newHarness with a hook on the build options (clock,
// stores).
func newHarnessWith(t *testing.T, extra http.Handler, mod func(*config.Config), bmod func(*gateway.BuildOptions)) *harness {
	t.Helper()
	h := &harness{t: t, idp: oidctest.New(t)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := documents.New(documents.Options{BaseURL: "http://" + ln.Addr().String(), Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	h.docs = docs
	h.docsSrv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: docs.Handler()}}
	h.docsSrv.Start()
	t.Cleanup(h.docsSrv.Close)
	extraURL := h.docsSrv.URL
	if extra != nil {
		h := extra
		if _, raw := extra.(rawUpstream); !raw {
			h = withCard(extra)
		}
		es := httptest.NewServer(h)
		t.Cleanup(es.Close)
		extraURL = es.URL
	}
	cfg, err := config.Parse([]byte(configYAML(h.docsSrv.URL+"/", extraURL+"/", h.idp.URL())), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(cfg)
	}
	h.cfg = cfg
	bo := gateway.BuildOptions{Runtime: platform.Runtime{Getenv: func(string) string { return "lab-secret" }}}
	if bmod != nil {
		bmod(&bo)
	}
	gw, err := gateway.FromConfig(context.Background(), cfg, bo)
	if err != nil {
		t.Fatal(err)
	}
	h.gw = gw
	t.Cleanup(func() { gw.Close() })
	h.srv = httptest.NewServer(gw.Handler())
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) token(mod func(map[string]any)) string {
	c := h.idp.Claims(testAudience, time.Now())
	c["email"] = "dana@example.com"
	c["email_verified"] = true
	c["groups"] = []string{"finance"}
	if mod != nil {
		mod(c)
	}
	return h.idp.Sign(c)
}

// post sends body to /a2a/{agent} with the given bearer credential.
func (h *harness) post(agent, bearer, body string, hdr ...string) (*http.Response, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/a2a/"+agent, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// upstreamSawNothing fails the test when the documents agent received any
// call (card fetches aside).
func (h *harness) upstreamSawNothing() {
	h.t.Helper()
	if n := h.calls(); n != 0 {
		h.t.Errorf("upstream received %d calls; a rejected call must never reach it", n)
	}
}

// calls counts the JSON-RPC calls the documents agent received since the
// last Reset; GETs of its card are not calls.
func (h *harness) calls() int {
	n := 0
	for _, r := range h.docs.Recorder().Requests() {
		if r.Method == http.MethodPost {
			n++
		}
	}
	return n
}

// rawUpstream marks a test upstream that serves its own card.
type rawUpstream struct{ http.Handler }

// withCard serves a permissive agent card in front of a test upstream, so
// that the gateway's hop validation passes.
func withCard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"name":"extra","url":"http://upstream.test/","version":"1",`+
				`"min_protocol_version":"0.1","max_protocol_version":"1.0",`+
				`"capabilities":{"streaming":true,"pushNotifications":true,"extensions":[{"uri":"`+agentcard.ExtensionURI+`"}]}}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

const sendBody = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"hello"}]}}}`

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int       `json:"code"`
		Message string    `json:"message"`
		Data    errorData `json:"data"`
	} `json:"error"`
}

func decodeRPC(t *testing.T, b []byte) rpcResponse {
	t.Helper()
	var r rpcResponse
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("response is not JSON-RPC: %v: %s", err, b)
	}
	return r
}

func decodeBatch(t *testing.T, b []byte) []rpcResponse {
	t.Helper()
	var rs []rpcResponse
	if err := json.Unmarshal(bytes.TrimSpace(b), &rs); err != nil {
		t.Fatalf("response is not a JSON-RPC batch: %v: %s", err, b)
	}
	return rs
}

func writeSecret(t *testing.T) string {
	t.Helper()
	p := t.TempDir() + "/secret"
	if err := os.WriteFile(p, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// clock is a settable clock for expiry tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
