package deploytest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/notes"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/client"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/revocation/redistest"
)

// composeWorld runs what docker-compose.yaml runs, in this process: the
// compose config as config.Load reads it, with every compose service name
// replaced by a loopback address and every container path by the file
// compose mounts there.
type composeWorld struct {
	hosts    map[string]string // "service:port" -> "127.0.0.1:N"
	replicas map[string]string // replica service -> base URL
}

// TestComposeReplicasServeTogether builds both replicas from the compose
// config with gateway.FromConfig, sharing one Redis and one key file, and
// checks that they act as one gateway: a capability issued by capgate-a
// works on capgate-b, a delegation through capgate-a reaches the
// summarizer, which calls the documents agent through capgate-b, and a
// revocation on capgate-b is refused by capgate-a.
func TestComposeReplicasServeTogether(t *testing.T) {
	skipUntilRedis(t)
	w := startComposeWorld(t)
	ctx := context.Background()
	a := composeClient(t, w.replicas["capgate-a"], "alice-dev-key")
	b := composeClient(t, w.replicas["capgate-b"], "alice-dev-key")
	caps, err := a.Request(ctx, client.RequestParams{Grants: []string{"documents:read"}, Purpose: "Summarize quarterly reports",
		ResourceQuery: &client.ResourceQuery{Collection: "reports", Filter: map[string]string{"quarter": "2025-Q1"}}})
	if err != nil {
		t.Fatalf("request on capgate-a: %v", err)
	}
	read := caps[0]
	h, _ := read.Handle("Q1 Financial Summary")
	if _, err := b.Invoke(ctx, read, "retrieve_document", map[string]any{"resourceHandle": h}); err != nil {
		t.Fatalf("capgate-b refuses a capability issued by capgate-a: %v", err)
	}
	sum, _ := a.For("summarizer")
	raw, err := sum.Delegate(ctx, client.Delegation{Text: "Summarize", Capabilities: []client.Capability{read},
		Attenuations: map[string]client.Constraints{read.ID: {ResourceHandles: []string{h}}}})
	if err != nil || !strings.Contains(string(raw), "Q1 Financial Summary: ") {
		t.Fatalf("delegation through capgate-a: %v %s", err, raw)
	}
	if err := b.Revoke(ctx, read); err != nil {
		t.Fatalf("revoke on capgate-b: %v", err)
	}
	// Replicas learn of a revocation through pub/sub: wait for it, with a
	// bound far above its milliseconds, rather than assert a duration.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := a.Invoke(ctx, read, "retrieve_document", map[string]any{"resourceHandle": h})
		if errors.Is(err, client.ErrCapabilityRevoked) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("capgate-a still serves a capability revoked on capgate-b: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func composeClient(t *testing.T, base, key string) *client.Client {
	t.Helper()
	c, err := client.New(base, "documents", client.Options{Credential: key, HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startComposeWorld(t *testing.T) *composeWorld {
	t.Helper()
	c := loadCompose(t)
	w := &composeWorld{hosts: map[string]string{}, replicas: map[string]string{}}
	redis := redistest.Start(t, "--appendonly", "yes") // as the compose file runs it
	w.hosts["redis:6379"] = redis.Addr
	listeners := map[string]net.Listener{}
	for _, name := range replicaNames() {
		ln := listen(t)
		listeners[name] = ln
		w.hosts[name+":"+listenPort(t, "compose")] = ln.Addr().String()
		w.replicas[name] = "http://" + ln.Addr().String()
	}
	w.startAgents(t, c.Services["example-agents"].Command)
	cfg := w.config(t, c.Services["capgate-a"])
	for _, name := range replicaNames() {
		serveReplica(t, cfg, listeners[name])
	}
	return w
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startAgents serves the documents, summarizer and notes agents that the
// example-agents command line would, the summarizer calling the gateway
// its --gateway flag names.
func (w *composeWorld) startAgents(t *testing.T, argv []string) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	docsLn, sumLn, notesLn := listen(t), listen(t), listen(t)
	_, docsPort, _ := net.SplitHostPort(flagValue(argv, "documents"))
	_, sumPort, _ := net.SplitHostPort(flagValue(argv, "summarizer"))
	_, notesPort, _ := net.SplitHostPort(flagValue(argv, "notes"))
	w.hosts["example-agents:"+docsPort] = docsLn.Addr().String()
	w.hosts["example-agents:"+sumPort] = sumLn.Addr().String()
	w.hosts["example-agents:"+notesPort] = notesLn.Addr().String()
	docs, err := documents.New(documents.Options{BaseURL: "http://" + docsLn.Addr().String(), Logger: logger, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := summarizer.New(summarizer.Options{
		BaseURL: "http://" + sumLn.Addr().String(), DocumentsURL: w.url(t, flagValue(argv, "gateway")) + "/a2a/documents",
		Credential: "summarizer-dev-key", Logger: logger, Now: time.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := notes.New(notes.Options{BaseURL: "http://" + notesLn.Addr().String() + "/", Logger: logger, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	for ln, h := range map[net.Listener]http.Handler{docsLn: docs.Handler(), sumLn: sum.Handler(), notesLn: plain} {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
}

// url rewrites a compose-network URL to the loopback address serving it.
func (w *composeWorld) url(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := w.hosts[u.Host]
	if !ok {
		t.Fatalf("%s names %s, which no compose service serves", raw, u.Host)
	}
	u.Host = addr
	return strings.TrimSuffix(u.String(), "/")
}

// config loads the compose config and points it at this world: service
// names become loopback addresses, container paths the mounted files (the
// key file, in a volume in compose, is generated here as the keys service
// would).
func (w *composeWorld) config(t *testing.T, replica composeService) *config.Config {
	t.Helper()
	cfg, err := config.Load(path("deploy", "examples", "compose", "capgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cfg.Agents {
		cfg.Agents[i].URL = w.url(t, cfg.Agents[i].URL) + "/"
	}
	for i := range cfg.A2EHosts {
		// The lab host is not served by example-agents yet: a closed port.
		ln := listen(t)
		ln.Close()
		cfg.A2EHosts[i].URL = "http://" + ln.Addr().String() + "/"
	}
	cfg.Redis.URL = w.url(t, cfg.Redis.URL)
	cfg.Listen.DrainDelay = 0
	m, ok := replica.mountFor(cfg.Policy.File)
	if !ok || m.named {
		t.Fatalf("the policy %s is not bind-mounted", cfg.Policy.File)
	}
	cfg.Policy.File = path(filepath.FromSlash(m.source))
	keys, err := captoken.GenerateKeySet("EdDSA")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capabilities.KeysFile = filepath.Join(t.TempDir(), filepath.Base(cfg.Capabilities.KeysFile))
	if err := keys.SaveFile(cfg.Capabilities.KeysFile); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// serveReplica builds one replica from cfg, as `capgate serve` does, and
// serves it on ln until the test ends.
func serveReplica(t *testing.T, cfg *config.Config, ln net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	gw, err := gateway.FromConfig(ctx, cfg, gateway.BuildOptions{Runtime: platform.Runtime{
		Logger: slog.New(slog.DiscardHandler),
		// As the compose file sets it for the replicas; the lab host is not
		// started here.
		Getenv: func(k string) string {
			if k == "CAPGATE_LAB_TOKEN" {
				return "lab-host-secret"
			}
			return ""
		},
	}})
	if err != nil {
		cancel()
		t.Fatalf("gateway.FromConfig: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- gw.Serve(ctx, ln, gateway.NewServer(cfg.Listen, gw.Handler())) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = gw.Close()
	})
}
