package a2afront

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/a2atasks"
	"github.com/capgate/capgate/gateway/agentcard"
	"github.com/capgate/capgate/gateway/answer"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/enforce"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/proxy"
	"github.com/capgate/capgate/gateway/pushrelay"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// TracerName is the instrumentation scope of the front's spans.
const TracerName = platform.TracerName

// PolicySource yields the policy that decides one request. Callers take
// Current once per request, so that every request is decided against
// exactly one policy revision even while the file is reloaded.
type PolicySource interface {
	Current() *policy.Policy
}

// Config is what the front serves: the agents, where callers reach them,
// and the bounds of every call.
type Config struct {
	// Agents are the upstream A2A agents, fronted at /a2a/{name}.
	Agents []config.Agent
	// PublicURL is the gateway's own base URL, written into served cards.
	PublicURL string
	// Issuer is the iss of every capability token the front mints.
	Issuer string
	// MaxTTL is the gateway's ceiling on a capability's life, applied on
	// top of the policy's own max_ttl.
	MaxTTL time.Duration
	// Limits bound one JSON-RPC body.
	Limits jsonrpc.Limits
	// UpstreamTimeout bounds one unary upstream call (and a whole batch).
	UpstreamTimeout time.Duration
	// StreamTimeout bounds one SSE stream.
	StreamTimeout time.Duration
	// OIDCIssuers are the trusted issuers' URLs, declared in served cards
	// as OpenID Connect security schemes beside HTTP Bearer.
	OIDCIssuers []string
	// Delegable are the targets of the gateway's other fronts (its MCP
	// servers) whose capabilities a caller may delegate to an agent with
	// a send, as it delegates an agent's.
	Delegable []string
	// MaxTasks and TaskTTL bound the in-memory task index used when
	// Deps.Tasks is nil; zero means DefaultMaxTasks and DefaultTaskTTL.
	MaxTasks int
	TaskTTL  time.Duration
	// MaxAnswerBytes bounds one upstream answer and one stream event of
	// an agent that sets no bound of its own (config.Agent's
	// MaxAnswerBytes); zero means answer.DefaultMaxBytes (16 MiB).
	MaxAnswerBytes int
}

// Deps are the front's collaborators.
type Deps struct {
	// Authenticator turns the caller's bearer credential into a principal.
	Authenticator *authn.Authenticator
	// Keys sign minted capabilities; Verifier verifies presented ones.
	Keys     *captoken.KeySet
	Verifier *captoken.Verifier
	// Index finds an issued capability by id.
	Index capindex.Index
	// Revocations says whether a capability (or an ancestor) is revoked.
	Revocations revocation.Store
	// Frozen is the emergency stop: nothing is issued to or for a frozen
	// agent or principal, and their capabilities are refused. Nil
	// freezes nothing.
	Frozen *freeze.Set
	// Tasks records who started each task; nil means an in-memory index
	// bounded by Config.MaxTasks and Config.TaskTTL.
	Tasks taskindex.Index
	// Policy decides issuance, ambient calls and legacy delegation.
	Policy PolicySource
	// Shadow, when set, is a candidate policy that decides every
	// capability request beside Policy without enforcing anything; each
	// disagreement is audited (policy.shadow_disagreement) and counted.
	Shadow PolicySource
	// Limits bounds each principal's issuance, attenuation, invocation
	// and live capabilities; nil limits nothing.
	Limits *ratelimit.Limiter
	// Approvals holds requests that wait for human approval; nil denies
	// every request that needs one.
	Approvals approval.Store
	// Push relays push notifications (package pushrelay); nil relays
	// none, and a push config on a call scoped to a capability is
	// refused.
	Push *pushrelay.Relay
	// Audit receives one event per issuance, attenuation, invocation
	// decision, delegation and revocation; nil records nothing.
	Audit *slog.Logger
	// Runtime is the clock (nil means time.Now), the operational logger
	// (nil discards), the metrics and the tracer (nil records nothing);
	// its Getenv and ReadFile read upstream client secrets.
	platform.Runtime
}

// Front is the A2A front: it decides every JSON-RPC call addressed to a
// fronted agent and forwards only what it allowed.
type Front struct {
	cfg     Config
	deps    Deps
	agents  map[string]*agent
	methods map[string]methodHandler
	checks  *enforce.Checker
	// tasks is task ownership: who may call on each task.
	tasks *a2atasks.Owners
	// answers checks and processes every answer of a forwarded call.
	answers *answer.Pipeline[*call]
	// decoder decodes every request body under cfg.Limits.
	decoder *jsonrpc.Decoder
	// quiet says the front traces nothing (deps.Tracer is quietTracer).
	quiet bool
}

// agent is one fronted upstream agent.
type agent struct {
	cfg       config.Agent
	url       *url.URL
	proxy     *proxy.Proxy
	card      *agentcard.Source
	publicURL string
	// known is what answers to calls scoped to a capability are checked
	// for beyond the capability's own ids: its catalog, compiled once.
	known *enforce.Catalog
	// maxAnswer bounds one of its answers, or one stream event.
	maxAnswer int
	// catalog is its config catalog, indexed once by collection and
	// attribute: issuance reads only the resources a query can match.
	catalog *policy.ResourceIndex
}

// New builds the front. It performs no network I/O: agent cards are
// fetched on first use.
func New(ctx context.Context, cfg Config, deps Deps) (*Front, error) {
	if err := deps.validate(); err != nil {
		return nil, err
	}
	decoder, err := jsonrpc.NewDecoder(cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("a2a front: %w", err)
	}
	deps = deps.withDefaults()
	if deps.Tasks == nil {
		deps.Tasks = taskindex.NewMemory(cmp.Or(cfg.MaxTasks, DefaultMaxTasks), cmp.Or(cfg.TaskTTL, DefaultTaskTTL), deps.Now)
	}
	f := &Front{cfg: cfg, deps: deps, agents: map[string]*agent{}, decoder: decoder}
	if _, ok := deps.Tracer.(noop.Tracer); ok {
		f.deps.Tracer, f.quiet = quietTracer{span: noop.Span{}}, true
	}
	for _, ac := range cfg.Agents {
		a, err := f.newAgent(ctx, ac)
		if err != nil {
			return nil, err
		}
		f.agents[ac.Name] = a
	}
	f.checks, err = enforce.New(enforce.Deps{
		Index: deps.Index, Verifier: deps.Verifier, Revocations: deps.Revocations, Frozen: deps.Frozen,
		Fronted: f.fronts, Logger: deps.Logger, Tracer: f.deps.Tracer,
	})
	if err != nil {
		return nil, fmt.Errorf("a2a front: %w", err)
	}
	f.tasks = a2atasks.New(deps.Tasks, deps.Logger)
	f.methods = f.methodTable()
	f.answers, err = answer.New(answer.Options{MaxBytes: cfg.MaxAnswerBytes, Logger: deps.Logger},
		f.taskAnswer, f.pushAnswer, f.mapIDs, f.translateAnswer)
	if err != nil {
		return nil, fmt.Errorf("a2a front: %w", err)
	}
	return f, nil
}

func (d Deps) validate() error {
	if d.Authenticator == nil || d.Keys == nil || d.Verifier == nil || d.Index == nil || d.Revocations == nil || d.Policy == nil {
		return errors.New("a2a front: authenticator, keys, verifier, index, revocation store and policy are required")
	}
	return nil
}

func (d Deps) withDefaults() Deps {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Tracer == nil {
		d.Tracer = noop.NewTracerProvider().Tracer(TracerName)
	}
	return d
}

func (f *Front) newAgent(ctx context.Context, ac config.Agent) (*agent, error) {
	u, err := url.Parse(ac.URL)
	if err != nil {
		return nil, fmt.Errorf("a2a front: agent %s: %w", ac.Name, err)
	}
	rt, err := upstreamTransport(ctx, ac, f.deps)
	if err != nil {
		return nil, err
	}
	a := &agent{cfg: ac, url: u, publicURL: f.cfg.PublicURL + "/a2a/" + ac.Name, known: knownIDs(ac),
		maxAnswer: cmp.Or(ac.MaxAnswerBytes, f.cfg.MaxAnswerBytes, answer.DefaultMaxBytes),
		catalog:   policy.NewResourceIndex(ac.Catalog)}
	a.proxy = proxy.New(u, proxy.Options{
		Transport: rt, ErrorHandler: f.upstreamError, ModifyResponse: f.modifyAnswer, Logger: f.deps.Logger,
	})
	a.card = agentcard.NewSource(f.signedCards(cardConfig(ac, u, a.publicURL, f.cfg.OIDCIssuers)), rt, f.deps.Now, f.deps.Logger)
	if !gated(a) {
		// The migration path, said out loud: sends reach this agent on
		// authentication alone.
		f.deps.Logger.InfoContext(ctx, "messages to this agent are forwarded on authentication alone; "+
			"set messages.require_capability to scope them", "agent", ac.Name)
	}
	return a, nil
}

// fronts reports whether name is an agent this front serves, or a
// target of another front whose capabilities may be delegated here.
func (f *Front) fronts(name string) bool {
	_, ok := f.agents[name]
	return ok || slices.Contains(f.cfg.Delegable, name)
}

// upstreamError answers a failed upstream hop with a JSON-RPC error, for
// the request's own id, and marks the hop as failed for the metrics.
func (f *Front) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	var id json.RawMessage
	method := ""
	if u, ok := upstreamFrom(r.Context()); ok {
		u.failed, id = true, u.id
		if u.c != nil {
			method = u.c.req.Method
		}
	}
	f.deps.Logger.WarnContext(r.Context(), "upstream call failed", "path", r.URL.Path, "error", err)
	jsonrpc.WriteResponse(w, http.StatusBadGateway, callerShape(method, r.Header, answer.UpstreamUnavailable(id)))
}

// ConfigFrom is the part of the gateway's config the front serves: the
// agents, the public URL, the capability issuer and ceiling, the body and
// upstream limits, the task index bounds, and the OIDC issuers that served
// cards declare.
func ConfigFrom(cfg *config.Config) Config {
	issuers := make([]string, 0, len(cfg.OIDC))
	for _, is := range cfg.OIDC {
		issuers = append(issuers, is.Issuer)
	}
	return Config{
		Agents: cfg.Agents, PublicURL: cfg.PublicURL,
		Issuer: cfg.Capabilities.Issuer, MaxTTL: cfg.Capabilities.MaxTTL.D(),
		Limits:          cfg.Limits.Limits,
		UpstreamTimeout: cfg.Limits.UpstreamTimeout.D(), StreamTimeout: cfg.Listen.StreamTimeout.D(),
		OIDCIssuers: issuers, Delegable: mcpServerNames(cfg),
		MaxTasks: cfg.Limits.MaxTasks, TaskTTL: cfg.Limits.TaskTTL.D(),
		MaxAnswerBytes: cfg.Limits.MaxAnswerBytes,
	}
}

// mcpServerNames are the names of the gateway's MCP servers.
func mcpServerNames(cfg *config.Config) []string {
	names := make([]string, 0, len(cfg.MCPServers))
	for _, s := range cfg.MCPServers {
		names = append(names, s.Name)
	}
	return names
}
