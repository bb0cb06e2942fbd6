package mcpfront

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/issue"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/mcp"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/revocation"
)

// Defaults of Config.
const (
	DefaultUpstreamTimeout = 30 * time.Second
	DefaultStreamTimeout   = time.Hour
	// DefaultMaxSessions and DefaultSessionTTL bound the in-memory session
	// index used when Deps.Sessions is nil.
	DefaultMaxSessions = 100_000
	DefaultSessionTTL  = 24 * time.Hour
)

// Config is what the front serves: the MCP servers, where callers reach
// them, and the bounds of every call.
type Config struct {
	// Servers are the upstream MCP servers, fronted at /mcp/{name}.
	Servers []config.MCPServer
	// PublicURL is the gateway's own base URL: each server's resource is
	// PublicURL + "/mcp/" + name.
	PublicURL string
	// Limits bound one JSON-RPC body; zero means jsonrpc's defaults.
	Limits jsonrpc.Limits
	// UpstreamTimeout bounds a call other than tools/call; zero means
	// DefaultUpstreamTimeout.
	UpstreamTimeout time.Duration
	// StreamTimeout bounds a tools/call, whose answer may be a stream;
	// zero means DefaultStreamTimeout.
	StreamTimeout time.Duration
	// OIDCIssuers are the trusted issuers, named in each server's
	// Protected Resource Metadata as its authorization servers.
	OIDCIssuers []string
	// MaxAnswerBytes bounds one upstream answer and one stream event;
	// zero means answer.DefaultMaxBytes (16 MiB).
	MaxAnswerBytes int
	// Issuer is the iss of every capability token the front mints.
	Issuer string
	// MaxTTL is the gateway's ceiling on a capability's life, on top of
	// the policy's own max_ttl.
	MaxTTL time.Duration
}

// Deps are the front's collaborators.
type Deps struct {
	// Authenticator turns the caller's bearer credential into a
	// principal. Required.
	Authenticator *authn.Authenticator
	// Verifier verifies presented capabilities. Required.
	Verifier *captoken.Verifier
	// Index finds an issued capability by id. Required.
	Index capindex.Index
	// Revocations says whether a capability or an ancestor is revoked.
	// Required.
	Revocations revocation.Store
	// Frozen is the emergency stop: a capability for a frozen server or
	// of a frozen principal is refused, and nothing is issued to either.
	// Nil freezes nothing.
	Frozen *freeze.Set
	// Keys sign the capabilities the front issues and attenuates, and
	// Policy decides issuance; without both, the capability methods are
	// refused (grant_denied) and only presented capabilities are served.
	Keys   *captoken.KeySet
	Policy issue.PolicySource
	// Shadow, when set, is a candidate policy that decides every
	// capability request beside Policy without enforcing anything; each
	// disagreement is audited (policy.shadow_disagreement) and counted.
	Shadow issue.PolicySource
	// Limits bounds each principal's issuance and attenuation; nil
	// limits nothing.
	Limits *ratelimit.Limiter
	// Approvals holds requests that wait for human approval; nil denies
	// every request that needs one.
	Approvals approval.Store
	// Sessions binds each MCP session to the principal that opened it;
	// nil means an in-memory index of DefaultMaxSessions sessions, each
	// kept DefaultSessionTTL after its last answer.
	Sessions taskindex.Index
	// Audit receives one event per tools/call decision and per issuance,
	// attenuation and revocation; nil records nothing.
	Audit *slog.Logger
	// Runtime is the clock (nil means time.Now), the operational logger
	// (nil discards) and the tracer (nil records nothing).
	platform.Runtime
}

// Front is the MCP front: it authenticates every request to a fronted MCP
// server, decides each tools/call on the capability it presents, and
// forwards only what it allowed.
type Front struct {
	cfg     Config
	deps    Deps
	servers map[string]*server
	checks  *enforce.Checker
	answers *answer.Pipeline[*call]
	decoder *jsonrpc.Decoder
}

// server is one fronted MCP server.
type server struct {
	cfg   config.MCPServer
	proxy *proxy.Proxy
	tools map[string]tool
	// resource is the server's resource URI, the gateway's URL for it.
	resource string
	// known is what answers are checked for beyond a capability's own ids.
	known *enforce.Catalog
}

// tool is what the front knows of one tool of a server.
type tool struct {
	operation string
	resources []mcp.Pointer
}

// New builds the front. It performs no network I/O.
func New(cfg Config, deps Deps) (*Front, error) {
	if deps.Authenticator == nil || deps.Verifier == nil || deps.Index == nil || deps.Revocations == nil {
		return nil, fmt.Errorf("%w: authenticator, verifier, index and revocation store are required", ErrInvalidConfig)
	}
	cfg = cfg.withDefaults()
	deps.Runtime = deps.WithDefaults()
	if deps.Audit == nil {
		deps.Audit = slog.New(slog.DiscardHandler)
	}
	if deps.Sessions == nil {
		deps.Sessions = taskindex.NewMemory(DefaultMaxSessions, DefaultSessionTTL, deps.Now)
	}
	decoder, err := jsonrpc.NewDecoder(cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	f := &Front{cfg: cfg, deps: deps, servers: map[string]*server{}, decoder: decoder}
	for _, sc := range cfg.Servers {
		s, err := f.newServer(sc)
		if err != nil {
			return nil, err
		}
		f.servers[sc.Name] = s
	}
	f.checks, err = enforce.New(enforce.Deps{
		Index: deps.Index, Verifier: deps.Verifier, Revocations: deps.Revocations, Frozen: deps.Frozen,
		Fronted: f.fronts, Logger: deps.Logger, Tracer: deps.Tracer,
	})
	if err != nil {
		return nil, fmt.Errorf("mcpfront: %w", err)
	}
	f.answers, err = answer.New(answer.Options{MaxBytes: cfg.MaxAnswerBytes, Logger: deps.Logger}, f.mapIDs, f.listTools, f.listResources)
	if err != nil {
		return nil, fmt.Errorf("mcpfront: %w", err)
	}
	return f, nil
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.WithDefaults()
	if c.UpstreamTimeout <= 0 {
		c.UpstreamTimeout = DefaultUpstreamTimeout
	}
	if c.StreamTimeout <= 0 {
		c.StreamTimeout = DefaultStreamTimeout
	}
	c.PublicURL = strings.TrimSuffix(c.PublicURL, "/")
	return c
}

// newServer builds one server from its config: its tools' pointers
// parsed, its proxy, its resource URI and its known ids.
func (f *Front) newServer(sc config.MCPServer) (*server, error) {
	u, err := url.Parse(sc.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: server %s: url %q", ErrInvalidConfig, sc.Name, sc.URL)
	}
	s := &server{cfg: sc, tools: map[string]tool{}, resource: f.cfg.PublicURL + "/mcp/" + sc.Name}
	for name, tc := range sc.Tools {
		t := tool{operation: tc.Operation}
		for _, raw := range tc.Resources {
			p, err := mcp.ParsePointer(raw)
			if err != nil {
				return nil, fmt.Errorf("%w: server %s: tool %s: %w", ErrInvalidConfig, sc.Name, name, err)
			}
			t.resources = append(t.resources, p)
		}
		s.tools[name] = t
	}
	known := enforce.Known{Placeholder: config.UnmappedPlaceholder, Refuse: sc.UnmappedIDs == config.UnmappedRefuse}
	for _, r := range sc.Catalog {
		if r.ID != "" {
			known.IDs = append(known.IDs, r.ID)
		}
	}
	s.known = enforce.NewCatalog(known)
	rt, err := f.upstreamTransport(sc)
	if err != nil {
		return nil, err
	}
	s.proxy = proxy.New(u, proxy.Options{
		Transport: rt, ErrorHandler: f.upstreamError, ModifyResponse: f.modifyAnswer, Logger: f.deps.Logger,
	})
	return s, nil
}

// upstreamTransport is the transport to one server: a tuned transport,
// with the gateway's own credential when upstream_auth names one. The
// secret is read once, here: a server whose secret cannot be read is a
// config the front cannot serve.
func (f *Front) upstreamTransport(sc config.MCPServer) (http.RoundTripper, error) {
	base, ua := proxy.NewTransport(), sc.UpstreamAuth
	switch {
	case ua == nil:
		return base, nil
	case ua.TokenURL != "":
		secret, err := f.deps.Secret(ua.ClientSecretEnv, ua.ClientSecretFile)
		if err != nil {
			return nil, fmt.Errorf("%w: server %s: client secret: %w", ErrInvalidConfig, sc.Name, err)
		}
		return proxy.ClientCredentials(context.Background(), base, clientcredentials.Config{
			ClientID: ua.ClientID, ClientSecret: secret, TokenURL: ua.TokenURL, Scopes: ua.Scopes,
		}), nil
	}
	token, err := f.deps.Secret(ua.BearerEnv, ua.BearerFile)
	if err != nil {
		return nil, fmt.Errorf("%w: server %s: bearer token: %w", ErrInvalidConfig, sc.Name, err)
	}
	return proxy.StaticBearer(base, token), nil
}

// fronts reports whether name is a server this front serves: a
// capability for anything else is invalid here.
func (f *Front) fronts(name string) bool {
	_, ok := f.servers[name]
	return ok
}

// Mount adds the front's routes to r:
//
//	GET    /.well-known/oauth-protected-resource/mcp/{server}   RFC 9728 metadata
//	POST   /mcp/{server}                                        Streamable HTTP, authenticated
//	GET    /mcp/{server}                                        a session's standalone stream (405 outside one)
//	DELETE /mcp/{server}                                        a session's end (405 outside one)
func (f *Front) Mount(r chi.Router) {
	r.Get(MetadataPrefix+"/mcp/{server}", f.serveMetadata)
	r.Route("/mcp/{server}", func(r chi.Router) {
		r.Use(f.authenticate)
		r.Post("/", f.serve)
		r.Get("/", f.serveStream)
		r.Delete("/", f.serveStream)
	})
}
