package a2afront

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/sep"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/policy/policytest"
	"github.com/capgate/capgate/revocation"
)

// The dev keys of the fixture's callers.
const (
	aliceKey = "alice-dev-key"
	bobKey   = "bob-dev-key"
)

// fixture is one front over the quickstart policy, with a documents
// agent (resolution hook served by the recording upstream) and a
// summarizer to delegate to. Nothing in it reaches beyond loopback.
type fixture struct {
	front       *Front
	authn       *authn.Authenticator
	keys        *captoken.KeySet
	index       capindex.Index
	revocations *revocation.Memory
	upstream    *recorder
	now         time.Time
}

// recorder is an upstream agent that serves a card declaring the
// capability extension, answers the resolution hook, and every other call
// with an empty result, and records every request.
type recorder struct {
	mu       sync.Mutex
	received []recorded
	// answer, when set, answers a call itself (returning true) instead of
	// the empty result.
	answer func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage, body []byte) bool
	// card, when set, is served as the agent's card instead of the
	// default one.
	card string
}

type recorded struct {
	method string
	header http.Header
	body   []byte
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/.well-known/") && rec.card != "" {
		_, _ = io.WriteString(w, rec.card)
		return
	}
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/.well-known/") {
		_, _ = io.WriteString(w, `{"name":"recorder","url":"http://upstream.test/","version":"1",`+
			`"min_protocol_version":"0.1","max_protocol_version":"1.0",`+
			`"capabilities":{"streaming":true,"pushNotifications":true,"extensions":[{"uri":"`+agentcard.ExtensionURI+`"}]}}`)
		return
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &env)
	rec.mu.Lock()
	rec.received = append(rec.received, recorded{method: env.Method, header: r.Header.Clone(), body: body})
	rec.mu.Unlock()
	if rec.answer != nil && rec.answer(w, r, env.Method, env.ID, body) {
		return
	}
	if env.Method == sep.MethodResolve {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"resources":[`+
			`{"id":"reports/q1-financial","collection":"reports","displayName":"Q1 Financial Summary","attributes":{"quarter":"2025-Q1"}},`+
			`{"id":"reports/q1-sales","collection":"reports","displayName":"Q1 Sales Report","attributes":{"quarter":"2025-Q1"}}]}}`)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, env.ID)
}

// calls returns what the upstream received for method ("" for all).
func (rec *recorder) calls(method string) []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recorded
	for _, r := range rec.received {
		if method == "" || r.method == method {
			out = append(out, r)
		}
	}
	return out
}

const fixtureConfig = `
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
agents:
  - name: documents
    url: %[1]s/
    grants:
      - {id: "documents:read", operations: [retrieve, search, list], attenuable: true}
      - {id: "documents:write", operations: [create, update, delete], attenuable: true, requires: ["documents:read"]}
      - {id: "documents:admin", operations: ["*"], attenuable: false, legacy: true}
    skills: {retrieve_document: retrieve, search_documents: search, list_documents: list, update_document: update, delete_document: delete}
  - name: summarizer
    url: %[1]s/
    principal: agent:summarizer
dev_keys: [{hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com"}]
policy: {file: policy.yaml}
`

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	data, err := readQuickstartPolicy()
	if err != nil {
		tb.Fatal(err)
	}
	return newFixtureWith(tb, fixtureConfig, data, quickstartCatalog(), &recorder{})
}

func readQuickstartPolicy() ([]byte, error) {
	return os.ReadFile("../../deploy/examples/quickstart/policy.yaml")
}

func quickstartCatalog() policy.Catalog { return policytest.QuickstartCatalog() }

// newFixtureWith builds a fixture from a config (whose agents' URLs are
// %[1]s, the upstream's), a policy and its catalog, over upstream.
func newFixtureWith(tb testing.TB, cfgText string, policyData []byte, catalog policy.Catalog, upstream *recorder) *fixture {
	tb.Helper()
	fx := &fixture{upstream: upstream, now: time.Now()}
	up := httptest.NewServer(fx.upstream)
	tb.Cleanup(up.Close)
	cfg, err := config.Parse(fmt.Appendf(nil, cfgText, up.URL), "fixture.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	fx.authn, err = authn.New(ctx, nil, []authn.DevKey{
		{Hash: authn.HashKey(aliceKey), Principal: "user:alice@example.com", Groups: []string{"finance"}},
		{Hash: authn.HashKey(bobKey), Principal: "user:bob@example.com", Groups: []string{"contractors"}},
	}, authn.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	pol, problems, err := policy.Load(ctx, policyData, "policy.yaml", catalog)
	if err != nil {
		tb.Fatal(err, problems)
	}
	fx.keys, err = captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		tb.Fatal(err)
	}
	clock := func() time.Time { return fx.now }
	v, err := captoken.NewVerifier(fx.keys, captoken.VerifierConfig{
		Issuer: "capgate", Algorithms: fx.keys.Algorithms(), Now: clock, CacheSize: 1000,
	})
	if err != nil {
		tb.Fatal(err)
	}
	fx.index = capindex.NewMemory(clock)
	fx.revocations = revocation.NewMemory(revocation.MemoryOptions{Now: clock})
	tb.Cleanup(func() { fx.index.Close(); fx.revocations.Close() })
	fx.front, err = New(ctx, Config{
		Agents: cfg.Agents, PublicURL: cfg.PublicURL, Issuer: "capgate", MaxTTL: time.Hour,
		Limits:          jsonrpc.Limits{MaxBodyBytes: 1 << 20, MaxBatch: 16, MaxDepth: 32},
		UpstreamTimeout: 10 * time.Second, StreamTimeout: time.Minute,
	}, Deps{
		Authenticator: fx.authn, Keys: fx.keys, Verifier: v, Index: fx.index,
		Revocations: fx.revocations, Policy: fixedPolicy{pol}, Runtime: platform.Runtime{Now: clock},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return fx
}

// fixedPolicy is a policy source that never reloads.
type fixedPolicy struct{ p *policy.Policy }

func (f fixedPolicy) Current() *policy.Policy { return f.p }

// principal authenticates a dev key.
func (fx *fixture) principal(tb testing.TB, key string) *authn.Principal {
	tb.Helper()
	p, err := fx.authn.AuthenticateToken(context.Background(), key)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// call decodes body into a call to agent by the holder of key.
func (fx *fixture) call(tb testing.TB, key, agent, body string) *call {
	tb.Helper()
	reqs, _, err := jsonrpc.Decode([]byte(body), fx.front.cfg.Limits)
	if err != nil {
		tb.Fatal(err)
	}
	return &call{agent: fx.front.agents[agent], principal: fx.principal(tb, key), req: reqs[0],
		http: httptest.NewRequest(http.MethodPost, "/a2a/"+agent, nil)}
}

// issue asks for documents:read on the Q1 reports as alice.
func (fx *fixture) issue(tb testing.TB) sep.Capability {
	tb.Helper()
	out := fx.front.decide(context.Background(), fx.call(tb, aliceKey, "documents",
		`{"jsonrpc":"2.0","id":1,"method":"a2a/capabilities/request","params":{"grants":["documents:read"],"resourceQuery":{"collection":"reports"}}}`))
	if out.resp == nil || out.resp.Error != nil {
		tb.Fatalf("issuance refused: %+v", out.resp)
	}
	var res sep.CapabilitiesResult
	raw, _ := json.Marshal(out.resp.Result)
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Capabilities) != 1 {
		tb.Fatalf("issuance answer: %s", raw)
	}
	return res.Capabilities[0]
}
