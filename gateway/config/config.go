package config

import (
	"time"

	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/policy"
)

// Config is the whole gateway configuration.
type Config struct {
	// Listen is the public listener that callers and agents reach.
	Listen Listener `yaml:"listen"`
	// Admin is the admin listener. Optional.
	Admin *Listener `yaml:"admin,omitempty"`
	// AdminAccess names who may use the admin listener: principals or
	// members of groups, authenticated like any caller.
	AdminAccess AdminAccess `yaml:"admin_access,omitempty"`
	// Console, when set, serves the operator console on the admin
	// listener.
	Console *Console `yaml:"console,omitempty"`
	// Redis holds the shared state of several replicas: revocations, the
	// capability index and A2E sessions. Absent means the embedded
	// in-memory stores, for a single replica.
	Redis *Redis `yaml:"redis,omitempty"`
	// PublicURL is the base URL callers use to reach the gateway. Agent
	// cards served by the gateway point here.
	PublicURL string `yaml:"public_url"`
	// Limits bounds what one request may cost.
	Limits Limits `yaml:"limits"`
	// RateLimits bounds what one principal may do over time: issuance,
	// attenuation and invocation rates, and live capabilities. Defaulted
	// and validated by package ratelimit; shared through Redis when it is
	// configured.
	RateLimits ratelimit.Config `yaml:"rate_limits,omitempty"`
	// Agents are the upstream A2A agents the gateway fronts.
	Agents []Agent `yaml:"agents"`
	// A2EHosts are the upstream A2E environment hosts.
	A2EHosts []A2EHost `yaml:"a2e_hosts,omitempty"`
	// MCPServers are the upstream MCP servers, fronted at /mcp/{name}.
	MCPServers []MCPServer `yaml:"mcp_servers,omitempty"`
	// OIDC lists the trusted OIDC issuers; authn validates them.
	OIDC []authn.IssuerConfig `yaml:"oidc,omitempty"`
	// DevKeys are the dev API keys of the quickstart, stored as hashes;
	// authn validates them.
	DevKeys []authn.DevKey `yaml:"dev_keys,omitempty"`
	// Policy names the grant-policy file owned by the security team.
	Policy PolicyRef `yaml:"policy"`
	// Capabilities configures capability-token issuance.
	Capabilities Capabilities `yaml:"capabilities"`
	// Audit configures the tamper-evident audit trail.
	Audit Audit `yaml:"audit,omitempty"`
	// Tracing, when set, exports OpenTelemetry spans over OTLP/HTTP.
	Tracing *Tracing `yaml:"tracing,omitempty"`
	// CORS, when set, lets browser pages on other origins call.
	CORS *CORS `yaml:"cors,omitempty"`
	// Approvals configures human approval of grants: the webhook that
	// tells approvers a request waits.
	Approvals *approval.Config `yaml:"approvals,omitempty"`
	// PushRelay, when set, relays push notifications through the gateway
	// (push.go).
	PushRelay *PushRelay `yaml:"push_relay,omitempty"`
}

// Tracing configures OpenTelemetry tracing: spans for authentication, the
// decision, capability verification, the revocation check and the upstream
// hop, with the trace context propagated upstream (W3C traceparent).
type Tracing struct {
	// OTLPEndpoint is the collector's OTLP/HTTP traces URL, e.g.
	// http://otel-collector:4318/v1/traces.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// ServiceName names this service in traces; default "capgate".
	ServiceName string `yaml:"service_name,omitempty"`
	// SampleRatio is the share of new traces sampled, 0 to 1; default 1.
	// A caller's sampled parent is always followed.
	SampleRatio *float64 `yaml:"sample_ratio,omitempty"`
}

// Audit configures the audit trail: one hash-chained JSON line per
// decision, to a file (default: standard output) and, with Redis, to a
// bounded Redis stream so that events outlive a replica.
type Audit struct {
	// File receives the events; empty means standard output.
	File string `yaml:"file,omitempty"`
	// Chain names this replica's chain; empty means a random id.
	Chain string `yaml:"chain,omitempty"`
	// StreamMaxLen bounds the Redis stream; 0 means 100000 entries.
	StreamMaxLen int64 `yaml:"stream_max_len,omitempty"`
	// CheckpointEvery is how many events may pass between two checkpoints
	// signed with the capability key set; 0 means 1000.
	CheckpointEvery int `yaml:"checkpoint_every,omitempty"`
	// CheckpointInterval is the longest an event waits for a signed
	// checkpoint to cover it; 0 means one minute.
	CheckpointInterval Duration `yaml:"checkpoint_interval,omitempty"`
	// Format is how the file and the stream receive each event:
	// canonical (empty), ocsf or cef (package audit/siem). The hash chain
	// is over the canonical events whatever the format.
	Format string `yaml:"format,omitempty"`
}

// AdminAccess names the principals allowed on the admin listener.
type AdminAccess struct {
	Principals []string `yaml:"principals,omitempty"`
	Groups     []string `yaml:"groups,omitempty"`
}

// Redis configures the shared store. Exactly one of URL (a single node)
// and Addrs (Sentinel with MasterName, or Cluster without) is set.
type Redis struct {
	URL         string   `yaml:"url,omitempty"`
	Addrs       []string `yaml:"addrs,omitempty"`
	MasterName  string   `yaml:"master_name,omitempty"`
	Username    string   `yaml:"username,omitempty"`
	PasswordEnv string   `yaml:"password_env,omitempty"`
	// Prefix starts every key; replicas of one gateway share it.
	Prefix string `yaml:"prefix,omitempty"`
	// Timeout bounds every Redis call.
	Timeout Duration `yaml:"timeout"`
	// MaxStaleness is how long the local revocation set may answer alone
	// after its last confirmed sync with Redis.
	MaxStaleness Duration `yaml:"max_staleness"`
	// AllowNoPersistence accepts a Redis with neither appendonly nor save
	// rules, which is refused otherwise: if it restarts while no replica
	// is running, every revocation is forgotten for good.
	AllowNoPersistence bool `yaml:"allow_no_persistence,omitempty"`
}

// Listener configures one HTTP listener and the timeouts a public listener
// needs.
type Listener struct {
	Addr              string   `yaml:"addr"`
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	ReadTimeout       Duration `yaml:"read_timeout"`
	WriteTimeout      Duration `yaml:"write_timeout"`
	IdleTimeout       Duration `yaml:"idle_timeout"`
	// StreamTimeout bounds one SSE response; WriteTimeout does not apply
	// to streams.
	StreamTimeout Duration `yaml:"stream_timeout"`
	// DrainDelay is how long readiness reports false before the listener
	// stops accepting, so that load balancers stop sending traffic.
	DrainDelay Duration `yaml:"drain_delay"`
	// ShutdownTimeout bounds how long in-flight requests may take to
	// finish during a graceful drain.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
}

// Limits bounds the cost of one request: the JSON-RPC body limits, which
// jsonrpc defaults and validates, and the upstream call's time.
type Limits struct {
	jsonrpc.Limits `yaml:",inline"`
	// UpstreamTimeout bounds one non-streaming upstream call.
	UpstreamTimeout Duration `yaml:"upstream_timeout"`
	// MaxTasks bounds the in-memory index of who started each task; the
	// least recently used task is forgotten first. Default 100000.
	MaxTasks int `yaml:"max_tasks,omitempty"`
	// TaskTTL is how long the gateway remembers who started a task after
	// its owner last used it, in memory or in Redis. Default 24h.
	TaskTTL Duration `yaml:"task_ttl,omitempty"`
	// MaxAnswerBytes bounds one upstream answer, and one event of a
	// stream, which the gateway holds whole to check; a larger one is
	// refused as answer_too_large. Default DefaultMaxAnswerBytes (16 MiB);
	// an agent may set its own (Agent.MaxAnswerBytes).
	MaxAnswerBytes int `yaml:"max_answer_bytes,omitempty"`
}

// The bounds of an answer limit: DefaultMaxAnswerBytes when none is set,
// and what a limit set may be.
const (
	DefaultMaxAnswerBytes = 16 << 20
	minAnswerBytes        = 4 << 10
	maxAnswerBytes        = 1 << 30
)

// Task ownership modes of an agent.
const (
	// TaskOwnershipEnforce allows a follow-up call on a task only to the
	// principal that started it; a task the gateway never saw started is
	// refused as not found.
	TaskOwnershipEnforce = "enforce"
	// TaskOwnershipAllowUnknown enforces ownership of the tasks the
	// gateway saw started, and forwards follow-ups on tasks it never saw
	// (started before the gateway fronted the agent, or forgotten) on
	// authentication alone.
	TaskOwnershipAllowUnknown = "allow_unknown"
	// TaskOwnershipOff forwards every follow-up call on authentication
	// alone: the agent must keep each principal's tasks apart itself.
	TaskOwnershipOff = "off"
)

// Agent is one upstream A2A agent.
type Agent struct {
	// Name is the path segment under /a2a/.
	Name string `yaml:"name"`
	// URL is the agent's JSON-RPC endpoint.
	URL string `yaml:"url"`
	// CardURL overrides where the agent card is fetched. It must share
	// URL's scheme and host.
	CardURL string `yaml:"card_url,omitempty"`
	// CardRefresh is how often the cached card is refreshed.
	CardRefresh Duration `yaml:"card_refresh"`
	// Principal is the agent's own identity, used as the holder of
	// capabilities delegated to it (for example agent:summarizer).
	Principal string `yaml:"principal,omitempty"`
	// Legacy marks an agent that does not understand capabilities.
	Legacy bool `yaml:"legacy,omitempty"`
	// TaskOwnership says who may follow up on a task (get, cancel,
	// resubscribe, push-notification configs, listing): TaskOwnershipEnforce
	// (the default), TaskOwnershipAllowUnknown or TaskOwnershipOff.
	TaskOwnership string `yaml:"task_ownership,omitempty"`
	// Grants are the capability grants the agent offers.
	Grants []policy.Grant `yaml:"grants,omitempty"`
	// Skills maps each skill to the operation it performs.
	Skills map[string]string `yaml:"skills,omitempty"`
	// Catalog is the resource catalog used for legacy agents that cannot
	// resolve resource queries themselves.
	Catalog []policy.Resource `yaml:"catalog,omitempty"`
	// UpstreamAuth is the gateway's own credential for this agent.
	UpstreamAuth *UpstreamAuth `yaml:"upstream_auth,omitempty"`
	// Messages, when set, requires a capability for every message to the
	// agent and every follow-up on its tasks.
	Messages *Messages `yaml:"messages,omitempty"`
	// MaxAnswerBytes, when set, bounds this agent's answers (and each
	// stream event) in place of limits.max_answer_bytes.
	MaxAnswerBytes int `yaml:"max_answer_bytes,omitempty"`
	// UnmappedIDs says what happens to a real resource id in an answer
	// that maps to no handle the caller holds: UnmappedRedact (default)
	// or UnmappedRefuse.
	UnmappedIDs string `yaml:"unmapped_ids,omitempty"`
	// PushRelay says which push configs on the agent's tasks the gateway
	// relays: PushRelayScoped (default), PushRelayAll or PushRelayOff.
	PushRelay string `yaml:"push_relay,omitempty"`
}

// UpstreamAuth configures an OAuth 2.0 client-credentials token that the
// gateway sends upstream in place of the caller's credential.
type UpstreamAuth struct {
	TokenURL         string   `yaml:"token_url"`
	ClientID         string   `yaml:"client_id"`
	ClientSecretEnv  string   `yaml:"client_secret_env,omitempty"`
	ClientSecretFile string   `yaml:"client_secret_file,omitempty"`
	Scopes           []string `yaml:"scopes,omitempty"`
}

// PolicyRef names the grant-policy file.
type PolicyRef struct {
	File string `yaml:"file"`
	// ReloadInterval is how often the file is checked for changes.
	ReloadInterval Duration `yaml:"reload_interval"`
	// ShadowFile, when set, names a candidate policy that decides every
	// capability request beside the enforced one without enforcing
	// anything; each disagreement is a policy.shadow_disagreement audit
	// event and counted in a metric. Reloaded like File.
	ShadowFile string `yaml:"shadow_file,omitempty"`
}

// Capabilities configures capability-token issuance.
type Capabilities struct {
	// Issuer is the iss of every capability token.
	Issuer string `yaml:"issuer"`
	// KeysFile holds the signing and sealing keys (capgate keys generate).
	// Empty means ephemeral keys generated at start, for a single replica.
	KeysFile string `yaml:"keys_file,omitempty"`
	// MaxTTL caps every capability's life, whatever the policy says. It
	// is also how long a revocation by id is kept when the capability
	// itself is not known.
	MaxTTL Duration `yaml:"max_ttl"`
}

// Duration is a time.Duration written as a Go duration string ("5s").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
