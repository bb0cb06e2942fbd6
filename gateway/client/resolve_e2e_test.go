package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
)

// notesConfig fronts one agent, notes, with no catalog: the gateway must
// ask the agent's resolution hook. Alice's dev key is the quickstart's.
const notesConfig = `
listen: {addr: "127.0.0.1:0"}
public_url: http://gateway.test
rate_limits: {disabled: true}
agents:
  - name: notes
    url: %s
    grants:
      - {id: "notes:read", operations: [read], attenuable: true}
dev_keys:
  - {hash: "sha256:2ca8cf9905b6838481900ae48c8e6ee72226b226cc6c43e24a5f11f63ac067c1", principal: "user:alice@example.com", groups: [finance]}
policy: {file: %s}
`

const notesPolicy = `
version: 1
rules:
  - id: finance-reads-notes
    principals: {groups: [finance]}
    agents: [notes]
    grants: [notes:read]
    resources: {collection: notes}
`

// hookedNotes is the plain notes agent with ResolveHandler in front: its
// only awareness of capabilities. Each note is a resource of collection
// notes, with an owner attribute taken from its id.
type hookedNotes struct {
	mu      sync.Mutex
	queries []client.ResourceQuery
	princs  []string
}

// serve starts it and returns its base URL.
func (h *hookedNotes) serve(t *testing.T) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	agent, err := notes.New(notes.Options{BaseURL: base, Logger: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(ctx context.Context, q client.ResourceQuery) ([]client.Resource, error) {
		h.mu.Lock()
		h.queries = append(h.queries, q)
		h.princs = append(h.princs, client.ResolvePrincipal(ctx))
		h.mu.Unlock()
		// Deliberately too broad: every note, whatever the query. The
		// gateway keeps only what matches it.
		var out []client.Resource
		for _, n := range agent.Notes() {
			owner, _, _ := strings.Cut(strings.TrimPrefix(n.ID, "notes/"), "-")
			out = append(out, client.Resource{ID: n.ID, Collection: "notes", DisplayName: n.Title, Attributes: map[string]string{"owner": owner}})
		}
		return out, nil
	}
	srv.Config.Handler = client.ResolveHandler(resolve)(agent)
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// startGateway builds a real gateway from notesConfig in front of upstream.
func startGateway(t *testing.T, upstream string) string {
	t.Helper()
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(notesPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(fmt.Appendf(nil, notesConfig, upstream, policyFile), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.FromConfig(context.Background(), cfg, gateway.BuildOptions{Runtime: platform.Runtime{Logger: slog.New(slog.DiscardHandler)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gw.Close() })
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestResolveHandlerBehindTheGateway: a real gateway issues a capability
// for a plain A2A agent whose only capability-awareness is ResolveHandler;
// the caller gets handles and titles, never the agent's ids, and only the
// resources its query names.
func TestResolveHandlerBehindTheGateway(t *testing.T) {
	hooked := &hookedNotes{}
	gwURL := startGateway(t, hooked.serve(t))

	alice, err := client.New(gwURL, "notes", client.Options{Credential: quickstart.AliceKey})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := alice.Request(context.Background(), client.RequestParams{
		Grants: []string{"notes:read"}, Purpose: "Plan the shopping",
		ResourceQuery: &client.ResourceQuery{Collection: "notes", Filter: map[string]string{"owner": "alice"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || len(caps[0].ResourceHandles) != 1 {
		t.Fatalf("issued %v, want one capability on one note", caps)
	}
	if h, ok := caps[0].Handle("Alice's groceries"); !ok || strings.Contains(h, "notes/") {
		t.Errorf("handles %v: want an opaque handle for Alice's groceries", caps[0].ResourceHandles)
	}
	if got := fmt.Sprintf("%+v", caps[0].ResourceHandles); strings.Contains(got, "notes/") {
		t.Errorf("the caller sees an agent id: %s", got)
	}
	if len(hooked.queries) != 1 {
		t.Fatalf("the hook was asked %d times, want once", len(hooked.queries))
	}
	if q := hooked.queries[0]; q.Collection != "notes" || q.Filter["owner"] != "alice" || hooked.princs[0] != "user:alice@example.com" {
		t.Errorf("the hook got %+v for %q", q, hooked.princs[0])
	}
}
