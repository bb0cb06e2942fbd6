package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/capgate/capgate/captoken"
	qsfiles "github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// AliceKey is the quickstart dev key of user:alice@example.com (group
// finance), the principal the load test acts as.
const AliceKey = "alice-dev-key"

// agentPath is where capgate fronts the documents agent.
const agentPath = "/a2a/documents"

// IssuanceBody is the a2a/capabilities/request the load test sends: alice
// asks for documents:read on collection reports, which the quickstart
// policy allows (rule finance-read-reports) and the upstream resolves to
// two resources.
const IssuanceBody = `{"jsonrpc":"2.0","id":1,"method":"` + methodRequest + `","params":` +
	`{"grants":["documents:read"],"purpose":"loadtest","resourceQuery":{"collection":"reports"}}}`

// Capability is the capability the load test invokes and attenuates.
type Capability struct {
	ID     string
	Token  string
	Handle string
}

// InvokeBody is an a2a/skill/invoke of retrieve_document on c's first
// handle, naming the capability by id and presenting its token: the full
// path (verify, revocation, holder, operation, handle, rewrite, proxy).
func InvokeBody(c Capability) []byte {
	type args struct {
		ResourceHandle string `json:"resourceHandle"`
	}
	type params struct {
		Skill           string `json:"skill"`
		Arguments       args   `json:"arguments"`
		CapabilityID    string `json:"capabilityId"`
		CapabilityToken string `json:"capabilityToken"`
	}
	return rpcBody(methodInvoke, params{Skill: "retrieve_document", Arguments: args{c.Handle},
		CapabilityID: c.ID, CapabilityToken: c.Token})
}

// AttenuateBody is an a2a/capabilities/attenuate of c with an empty
// constraints object: each call mints a child with the parent's scope.
func AttenuateBody(c Capability) []byte {
	type params struct {
		CapabilityID    string   `json:"capabilityId"`
		CapabilityToken string   `json:"capabilityToken"`
		Constraints     struct{} `json:"constraints"`
	}
	return rpcBody(methodAttenuate, params{CapabilityID: c.ID, CapabilityToken: c.Token})
}

func rpcBody(method string, params any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		panic(fmt.Sprintf("loadtest: marshal %s: %v", method, err)) // fixed shapes: cannot fail
	}
	return b
}

// Capgate is one gateway under test, served on loopback, with the
// capability issued to alice for the load.
type Capgate struct {
	Variant Variant
	Server  *Server
	Built   *gateway.Built
	Cap     Capability
	// MCP is alice's capability on the files MCP server, issued at
	// /mcp/files.
	MCP Capability
}

// capgateOptions configures startCapgate.
type capgateOptions struct {
	variant     Variant
	upstreamURL string
	policyFile  string
	// revocations is the store for the variant; nil means the embedded
	// in-memory default.
	revocations revocation.Store
	now         func() time.Time
	// client sends the setup requests.
	client *http.Client
	// catalog, when set, is the documents agent's catalog in the config,
	// so that issuance makes no hop to the agent.
	catalog []policy.Resource
	// redis, when set, is the gateway's Redis (revocations, index and the
	// rest), as replicas of one gateway share it; keys is then the key set
	// the replicas share.
	redis *config.Redis
	keys  *captoken.KeySet
}

// startCapgate builds a gateway from the quickstart config, serves it, and
// requests alice's capability through it.
func startCapgate(ctx context.Context, o capgateOptions) (*Capgate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: capgate listen: %w", ErrSetup, err)
	}
	cfg, err := capgateConfig("http://"+ln.Addr().String(), o.upstreamURL, o.policyFile, o.catalog)
	if err != nil {
		ln.Close()
		return nil, err
	}
	cfg.Redis = o.redis
	built, err := gateway.FromConfig(ctx, cfg, gateway.BuildOptions{
		Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler), Now: o.now,
			// The lab A2E host is configured but not started or driven here.
			Getenv: func(string) string { return "unused-lab-secret" }},
		Revocations: o.revocations, Keys: o.keys,
	})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("%w: capgate (%s): %w", ErrSetup, o.variant, err)
	}
	c := &Capgate{Variant: o.variant, Built: built, Server: serveOn(ln, built.Handler(), cfg.Listen)}
	err = c.prepare(ctx, o.client)
	if err == nil {
		err = c.prepareMCP(ctx, o.client)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// capgateConfig is the embedded quickstart config with the documents agent
// pointed at the upstream, no admin listener, no Redis and no
// per-principal limits; with a catalog, it is the agent's (World.catalog:
// those the upstream resolves, and perhaps others). The notes agent stays,
// since the quickstart policy names it, but is never called: it points at
// a path the upstream does not serve. The files MCP server is the
// upstream, under /mcp-files.
func capgateConfig(publicURL, upstreamURL, policyFile string, catalog []policy.Resource) (*config.Config, error) {
	data, err := qsfiles.Files.ReadFile("capgate.yaml")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	cfg, err := config.Parse(data, "quickstart/capgate.yaml")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	cfg.PublicURL, cfg.Admin, cfg.Redis, cfg.Policy.File = publicURL, nil, nil, policyFile
	// One principal drives the whole load: the per-principal limits would
	// measure themselves, not the gateway.
	cfg.RateLimits.Disabled = true
	var agents []config.Agent
	found := false
	for _, a := range cfg.Agents {
		switch a.Name {
		case "documents":
			a.URL, found = upstreamURL+"/", true
			a.Catalog = catalog
			agents = append(agents, a)
		case "notes":
			a.URL = upstreamURL + "/unused-notes/"
			agents = append(agents, a)
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: the quickstart config has no documents agent", ErrSetup)
	}
	cfg.Agents = agents
	for i := range cfg.MCPServers {
		cfg.MCPServers[i].URL = upstreamURL + "/mcp-files"
	}
	return cfg, nil
}

// prepare issues alice's capability and checks one full invocation.
func (c *Capgate) prepare(ctx context.Context, client *http.Client) error {
	body, err := post(ctx, client, c.Server.URL+agentPath, []byte(IssuanceBody))
	if err != nil {
		return fmt.Errorf("%w: capgate (%s): capability request: %w", ErrSetup, c.Variant, err)
	}
	if c.Cap, err = parseIssued(body); err != nil {
		return fmt.Errorf("%w: capgate (%s): %w", ErrSetup, c.Variant, err)
	}
	if _, err := post(ctx, client, c.Server.URL+agentPath, InvokeBody(c.Cap)); err != nil {
		return fmt.Errorf("%w: capgate (%s): first invocation: %w", ErrSetup, c.Variant, err)
	}
	return nil
}

// parseIssued reads the first capability of an issuance answer.
func parseIssued(body []byte) (Capability, error) {
	var out struct {
		Result struct {
			Capabilities []struct {
				ID              string `json:"id"`
				Token           string `json:"token"`
				ResourceHandles []struct {
					Handle string `json:"handle"`
				} `json:"resourceHandles"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return Capability{}, fmt.Errorf("issuance answer: %w", err)
	}
	cs := out.Result.Capabilities
	if len(cs) == 0 || cs[0].ID == "" || cs[0].Token == "" || len(cs[0].ResourceHandles) == 0 {
		return Capability{}, fmt.Errorf("issuance answer has no usable capability: %s", snippet(body))
	}
	return Capability{ID: cs[0].ID, Token: cs[0].Token, Handle: cs[0].ResourceHandles[0].Handle}, nil
}

// Close stops the server and the gateway.
func (c *Capgate) Close() error {
	return errors.Join(c.Server.Close(), c.Built.Close())
}

// RequestHeader is the header of every load request: alice's dev key and
// a JSON content type. The upstream and the baseline get it too, so every
// target sees the same request.
func RequestHeader() http.Header {
	return http.Header{
		"Authorization": {"Bearer " + AliceKey},
		"Content-Type":  {"application/json"},
	}
}

// post sends one setup request and returns the answer when it is a
// JSON-RPC result.
func post(ctx context.Context, client *http.Client, url string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	status, b, err := exchange(ctx, client, url, body)
	if err != nil {
		return nil, err
	}
	return b, CheckResponse(status, b)
}

// exchange posts body to url as alice and returns the answer's status
// and body (at most 1 MiB).
func exchange(ctx context.Context, client *http.Client, url string, body []byte) (int, []byte, error) {
	return exchangeWith(ctx, client, url, body, RequestHeader())
}

// exchangeWith is exchange with the request's header.
func exchangeWith(ctx context.Context, client *http.Client, url string, body []byte, h http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = h
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// upstreamCatalog is what the upstream resolves (resolveResult), as a
// config catalog.
func upstreamCatalog() []policy.Resource {
	q1 := map[string]string{"quarter": "2025-Q1"}
	return []policy.Resource{
		{ID: "reports/q1-financial", Collection: "reports", DisplayName: "Q1 Financial Summary", Attributes: q1},
		{ID: "reports/q1-sales", Collection: "reports", DisplayName: "Q1 Sales Report", Attributes: q1},
	}
}
