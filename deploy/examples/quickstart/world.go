package quickstart

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/capgate/capgate/deploy/examples/quickstart/documents"
	"github.com/capgate/capgate/deploy/examples/quickstart/lab"
	"github.com/capgate/capgate/deploy/examples/quickstart/summarizer"
	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/platform"
)

// Dev keys of the quickstart principals. They are for the
// quickstart only; the config stores their hashes.
const (
	AliceKey      = "alice-dev-key"
	BobKey        = "bob-dev-key"
	CarolKey      = "carol-dev-key"
	SummarizerKey = "summarizer-dev-key"
	AdminKey      = "admin-dev-key"
	// DaveKey is the approver's: dave is in group security, which the
	// policy names as the approvers of HR writes.
	DaveKey = "dave-dev-key"
	// LabSecret is the lab A2E host's own shared secret. Only the gateway
	// knows it; callers authenticate to the gateway with their own keys.
	LabSecret = "lab-host-secret"
)

// Options configures Start.
type Options struct {
	// Addr is the gateway's listen address; "127.0.0.1:0" picks a port.
	Addr   string
	Logger *slog.Logger
	Now    func() time.Time
	// AdminAddr is the admin listener's address; "127.0.0.1:0" picks one.
	AdminAddr string
	// RedisURL, when set, makes the world a replica sharing revocations,
	// the capability index and sessions through that Redis.
	RedisURL string
	// KeysFile, when set, is the capability key file (shared by replicas).
	KeysFile string
	// AuditWriter receives the audit trail; nil discards it, unless
	// AuditFile is set.
	AuditWriter io.Writer
	// AuditFile, when set (and AuditWriter is nil), is the config's
	// audit.file: the gateway appends its trail there and the console's
	// audit page reads it.
	AuditFile string
	// Configure may edit the config before the gateway is built.
	Configure func(*config.Config)
}

// World is a running quickstart world.
type World struct {
	// URL is the gateway's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// AdminURL is the admin listener's base URL.
	AdminURL string
	// Gateway is the gateway in front of the agents.
	Gateway *gateway.Built
	// Config is the config the gateway runs with.
	Config *config.Config
	// Documents is the documents agent; its Recorder shows what reached it.
	Documents *documents.Agent
	// Summarizer is the capability-aware summarizer agent.
	Summarizer *summarizer.Agent
	// Lab is the lab A2E environment host; its Recorder shows what
	// reached it.
	Lab *lab.Host
	// Notes is the plain notes agent (no capability extension), fronted
	// with capability-gated messaging; its Recorder shows what reached it.
	Notes *NotesAgent
	// Files is the files MCP server, fronted at /mcp/files; its Recorder
	// shows what reached it.
	Files *FilesServer

	servers []*http.Server
	tmpDir  string
	gwDone  chan error
	cancel  context.CancelFunc
}

// Start starts the agents and the gateway. Close stops them.
func Start(ctx context.Context, opts Options) (*World, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &World{cancel: cancel}
	if err := w.start(ctx, opts); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func (w *World) start(ctx context.Context, opts Options) error {
	gwLn, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("quickstart: gateway listen: %w", err)
	}
	w.URL = "http://" + gwLn.Addr().String()
	docsURL, err := w.startDocuments(opts)
	if err != nil {
		gwLn.Close()
		return err
	}
	sumURL, err := w.startSummarizer(opts)
	if err != nil {
		gwLn.Close()
		return err
	}
	labURL, err := w.startLab(opts)
	if err != nil {
		gwLn.Close()
		return err
	}
	n, err := w.startNotes(opts)
	if err != nil {
		gwLn.Close()
		return err
	}
	w.Notes = n
	if w.Files, err = w.startFiles(opts); err != nil {
		gwLn.Close()
		return err
	}
	cfg, err := w.config(map[string]string{"documents": docsURL, "summarizer": sumURL, "lab": labURL, "notes": n.URL, "files": w.Files.URL})
	if err != nil {
		gwLn.Close()
		return err
	}
	applyOptions(cfg, opts)
	if opts.Configure != nil {
		opts.Configure(cfg)
	}
	w.Config = cfg
	gw, err := gateway.FromConfig(ctx, cfg, gateway.BuildOptions{
		Runtime:     platform.Runtime{Logger: opts.Logger, Now: opts.Now, Getenv: worldEnv},
		AuditWriter: opts.AuditWriter,
	})
	if err != nil {
		gwLn.Close()
		return err
	}
	w.Gateway = gw
	srv := gateway.NewServer(cfg.Listen, gw.Handler())
	w.gwDone = make(chan error, 1)
	go func() { w.gwDone <- gw.Serve(ctx, gwLn, srv) }()
	return w.startAdmin(opts)
}

func (w *World) startAdmin(opts Options) error {
	addr := opts.AdminAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("quickstart: admin listen: %w", err)
	}
	w.AdminURL = "http://" + ln.Addr().String()
	w.serve(ln, w.Gateway.AdminHandler())
	return nil
}

// applyOptions points the config at the world's shared state, if any.
func applyOptions(cfg *config.Config, opts Options) {
	if opts.RedisURL != "" {
		cfg.Redis = &config.Redis{
			URL: opts.RedisURL, Prefix: "capgate:", Timeout: config.Duration(250 * time.Millisecond),
			MaxStaleness: config.Duration(2 * time.Second),
			// A demo may run a throwaway Redis; the risk is logged.
			AllowNoPersistence: true,
		}
	}
	if opts.KeysFile != "" {
		cfg.Capabilities.KeysFile = opts.KeysFile
	}
	if opts.AuditFile != "" {
		cfg.Audit.File = opts.AuditFile
	}
}

func (w *World) startDocuments(opts Options) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("quickstart: documents listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	agent, err := documents.New(documents.Options{BaseURL: base, Logger: opts.Logger, Now: opts.Now})
	if err != nil {
		ln.Close()
		return "", err
	}
	w.Documents = agent
	w.serve(ln, agent.Handler())
	return base + "/", nil
}

func (w *World) startSummarizer(opts Options) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("quickstart: summarizer listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	agent, err := summarizer.New(summarizer.Options{
		BaseURL: base, DocumentsURL: w.URL + "/a2a/documents", FilesURL: w.URL + "/mcp/files", Credential: SummarizerKey,
		Logger: opts.Logger, Now: opts.Now,
	})
	if err != nil {
		ln.Close()
		return "", err
	}
	w.Summarizer = agent
	w.serve(ln, agent.Handler())
	return base + "/", nil
}

func (w *World) startLab(opts Options) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("quickstart: lab listen: %w", err)
	}
	host, err := lab.New(lab.Options{Logger: opts.Logger, Now: opts.Now, AuthToken: LabSecret})
	if err != nil {
		ln.Close()
		return "", err
	}
	w.Lab = host
	w.serve(ln, host.Handler())
	return "http://" + ln.Addr().String() + "/", nil
}

// worldEnv is the environment the world's gateway reads: only the lab's
// secret.
func worldEnv(key string) string {
	if key == "CAPGATE_LAB_TOKEN" {
		return LabSecret
	}
	return ""
}

func (w *World) serve(ln net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	w.servers = append(w.servers, srv)
	go func() { _ = srv.Serve(ln) }()
}

// config parses the embedded quickstart config and points it at this
// world's agents and gateway address.
func (w *World) config(agentURLs map[string]string) (*config.Config, error) {
	data, err := Files.ReadFile("capgate.yaml")
	if err != nil {
		return nil, fmt.Errorf("quickstart: %w", err)
	}
	cfg, err := config.Parse(data, "quickstart/capgate.yaml")
	if err != nil {
		return nil, err
	}
	// The capability issuer stays the config's: replicas on other ports
	// must accept each other's tokens.
	cfg.PublicURL = w.URL
	if cfg.Policy.File, err = w.writePolicy(); err != nil {
		return nil, err
	}
	for i := range cfg.Agents {
		u, ok := agentURLs[cfg.Agents[i].Name]
		if !ok {
			return nil, fmt.Errorf("quickstart: no example agent for %q", cfg.Agents[i].Name)
		}
		cfg.Agents[i].URL = u
	}
	for i := range cfg.A2EHosts {
		u, ok := agentURLs[cfg.A2EHosts[i].Name]
		if !ok {
			return nil, fmt.Errorf("quickstart: no example host for %q", cfg.A2EHosts[i].Name)
		}
		cfg.A2EHosts[i].URL = u
	}
	for i := range cfg.MCPServers {
		u, ok := agentURLs[cfg.MCPServers[i].Name]
		if !ok {
			return nil, fmt.Errorf("quickstart: no example MCP server for %q", cfg.MCPServers[i].Name)
		}
		cfg.MCPServers[i].URL = u
	}
	return cfg, nil
}

// writePolicy writes the embedded quickstart policy to a temporary folder,
// since the policy watcher reads a file.
func (w *World) writePolicy() (string, error) {
	data, err := Files.ReadFile("policy.yaml")
	if err != nil {
		return "", fmt.Errorf("quickstart: %w", err)
	}
	dir, err := os.MkdirTemp("", "capgate-quickstart-")
	if err != nil {
		return "", fmt.Errorf("quickstart: %w", err)
	}
	w.tmpDir = dir
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("quickstart: %w", err)
	}
	return path, nil
}

// Close stops the gateway (draining it) and the agents.
func (w *World) Close() error {
	w.cancel()
	var errs []error
	if w.gwDone != nil {
		if err := <-w.gwDone; err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range w.servers {
		errs = append(errs, s.Close())
	}
	if w.Lab != nil {
		errs = append(errs, w.Lab.Close())
	}
	if w.Gateway != nil {
		errs = append(errs, w.Gateway.Close())
	}
	if w.tmpDir != "" {
		errs = append(errs, os.RemoveAll(w.tmpDir))
	}
	return errors.Join(errs...)
}
