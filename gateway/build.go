package gateway

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/approval"
	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/audit/siem"
	"github.com/capgate/capgate/gateway/audit/throttle"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/console"
	"github.com/capgate/capgate/gateway/freeze"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/platform"
	"github.com/capgate/capgate/gateway/ratelimit"
	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// verifiedCacheSize bounds the verified-claims cache. Cached claims still
// go through the revocation check on every use.
const verifiedCacheSize = 100_000

// BuildOptions are the process-level dependencies of FromConfig.
type BuildOptions struct {
	// Runtime is the process's share: the clock, the logger and the
	// environment (Getenv; ReadFile, nil meaning os.ReadFile). FromConfig
	// completes it with the metrics (on Registry), the Redis client the
	// config names and the tracer (TracerProvider's, or the config's),
	// unless metrics or a tracer are given, and hands it to every part.
	// Its Redis must be nil: the client is opened from the config.
	platform.Runtime
	// HTTPClient is used for OIDC discovery and JWKS fetches.
	HTTPClient *http.Client
	// Revocations overrides the embedded in-memory revocation store.
	Revocations revocation.Store
	// Index overrides the embedded in-memory capability index.
	Index capindex.Index
	// Keys overrides the config's key file.
	Keys *captoken.KeySet
	// AuditWriter receives the audit trail; nil means the config's
	// audit.file, or nowhere.
	AuditWriter io.Writer
	// Registry receives the metrics; nil means a new registry.
	Registry *prometheus.Registry
	// TracerProvider overrides the config's tracing.
	TracerProvider trace.TracerProvider
	// PushRootCAs, when set, are the only roots the push relay trusts
	// for callers' receivers (a test's receiver); nil means the system's.
	PushRootCAs *x509.CertPool
}

// Built is a gateway with the resources FromConfig opened for it.
type Built struct {
	*Gateway
	Policy  *policy.Watcher
	closers []func() error
	// readyChecks are handed to the gateway's /readyz.
	readyChecks []func(context.Context) error
	revocations revocation.Store
}

// Close stops the policy watcher and closes the stores FromConfig opened,
// last opened first, as defer would: the stores stop before the Redis
// client they run on is closed.
func (b *Built) Close() error {
	var errs []error
	for i := len(b.closers) - 1; i >= 0; i-- {
		errs = append(errs, b.closers[i]())
	}
	return errors.Join(errs...)
}

// FromConfig builds a gateway from a loaded config: first the runtime
// every part shares (the caller's, completed), then the authenticator,
// the capability dependencies and both fronts, each handed the runtime.
// The capability dependencies are the key set (the config's key file, or
// ephemeral keys for a single replica), the policy watcher on the policy
// file, and the embedded in-memory index and revocation store unless
// others are given.
func FromConfig(ctx context.Context, cfg *config.Config, opts BuildOptions) (*Built, error) {
	opts = opts.withDefaults()
	b := &Built{}
	var err error
	if opts.Runtime, err = b.runtime(ctx, cfg, opts); err != nil {
		b.Close()
		return nil, err
	}
	a, err := authn.New(ctx, cfg.OIDC, cfg.DevKeys, authn.Options{
		HTTPClient: opts.HTTPClient, Runtime: opts.Runtime,
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("gateway: authentication: %w", err)
	}
	caps, err := b.capabilities(ctx, cfg, opts)
	if err != nil {
		b.Close()
		return nil, err
	}
	fronts, err := b.fronts(ctx, cfg, opts, a, caps)
	if err != nil {
		b.Close()
		return nil, err
	}
	gw, err := New(ctx, Options{
		Config: cfg, Authenticator: a, Capabilities: caps, Runtime: opts.Runtime, Ready: b.readyChecks,
		MetricsHandler: opts.Metrics.Handler(), Fronts: fronts,
	})
	if err != nil {
		b.Close()
		return nil, err
	}
	b.Gateway = gw
	return b, nil
}

func (o BuildOptions) withDefaults() BuildOptions {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	return o
}

// cacheStats reports, at scrape time, the revocation store's local set
// when it keeps one (an optional LocalSet method: the synced Redis store
// and the memory store have it).
func (b *Built) cacheStats() metrics.RevocationCacheStats {
	if st, ok := b.revocations.(interface{ LocalSet() revocation.LocalSet }); ok {
		x := st.LocalSet()
		return metrics.RevocationCacheStats{Size: x.Size, SyncedAt: x.SyncedAt,
			UnconfirmedRevokes: x.UnconfirmedRevokes, MissingAcks: x.MissingAcks, DroppedAcks: x.DroppedAcks}
	}
	return metrics.RevocationCacheStats{}
}

func (b *Built) capabilities(ctx context.Context, cfg *config.Config, opts BuildOptions) (*Capabilities, error) {
	ks, err := keySet(cfg, opts)
	if err != nil {
		return nil, err
	}
	v, err := captoken.NewVerifier(ks, captoken.VerifierConfig{
		Issuer: cfg.Capabilities.Issuer, Algorithms: ks.Algorithms(), Leeway: 30 * time.Second,
		Now: opts.Now, CacheSize: verifiedCacheSize,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: capability verifier: %w", err)
	}
	w, err := policy.NewWatcher(ctx, cfg.Policy.File, cfg.Catalog(), policy.WatcherOptions{
		Interval: cfg.Policy.ReloadInterval.D(), Logger: opts.Logger, OnReload: opts.Metrics.PolicyReloaded,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err) // the policy's errors start with "policy: "
	}
	b.Policy = w
	b.closers = append(b.closers, w.Close)
	opts.Metrics.SetPolicyRevision(w.Current().Revision())
	caps := &Capabilities{Keys: ks, Verifier: v, Policy: w, Index: opts.Index, Revocations: opts.Revocations}
	if cfg.Policy.ShadowFile != "" {
		sw, err := policy.NewWatcher(ctx, cfg.Policy.ShadowFile, cfg.Catalog(), policy.WatcherOptions{
			Interval: cfg.Policy.ReloadInterval.D(), Logger: opts.Logger.With("policy", "shadow")})
		if err != nil {
			return nil, fmt.Errorf("gateway: shadow %w", err) // "shadow policy: ..."
		}
		b.closers, caps.Shadow = append(b.closers, sw.Close), sw
	}
	if err := b.stores(ctx, cfg, opts, caps); err != nil {
		return nil, err
	}
	if err := b.guards(cfg, opts, caps); err != nil {
		return nil, err
	}
	b.refusals(ctx, opts, caps)
	return caps, nil
}

// refusals bounds the audit events of refused admin API and console
// calls per client, writing each summary soon after its window ends, and
// the pending ones on Close, before the audit trail closes.
func (b *Built) refusals(ctx context.Context, opts BuildOptions, caps *Capabilities) {
	caps.Refusals = throttle.New(throttle.Options{Audit: caps.Audit, Now: opts.Now})
	sweep, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		caps.Refusals.Run(sweep)
	}()
	b.closers = append(b.closers, func() error {
		stop()
		<-done
		caps.Refusals.Close(context.WithoutCancel(ctx))
		return nil
	})
}

// stores opens the capability index, the revocation store and the task
// index: on the runtime's Redis when it has one (the config names one and
// no store is given), in memory otherwise.
func (b *Built) stores(ctx context.Context, cfg *config.Config, opts BuildOptions, caps *Capabilities) error {
	if opts.Redis != nil {
		var err error
		if caps.Revocations, caps.Index, err = b.redisStores(ctx, cfg, opts); err != nil {
			return err
		}
		caps.Tasks = taskindex.NewRedis(opts.Redis.Client, opts.Redis.Prefix, cmp.Or(cfg.Limits.TaskTTL.D(), a2afront.DefaultTaskTTL), opts.Redis.Timeout)
	}
	if caps.Index == nil {
		caps.Index = capindex.NewMemory(opts.Now)
		b.closers = append(b.closers, caps.Index.Close)
	}
	if caps.Revocations == nil {
		mem := revocation.NewMemory(revocation.MemoryOptions{Now: opts.Now})
		caps.Revocations = mem
		b.closers = append(b.closers, mem.Close)
	}
	b.revocations = caps.Revocations
	caps.Frozen = freeze.New(ctx, freeze.Options{Runtime: opts.Runtime, MaxStaleness: staleness(cfg)})
	b.closers = append(b.closers, caps.Frozen.Close)
	if opts.Redis != nil {
		b.readyChecks = append(b.readyChecks, caps.Frozen.Ready)
	}
	return nil
}

// staleness is the config's redis.max_staleness, zero without Redis.
func staleness(cfg *config.Config) time.Duration {
	if cfg.Redis == nil {
		return 0
	}
	return cfg.Redis.MaxStaleness.D()
}

// guards opens what watches over every capability: the audit trail, the
// per-principal limits and the approval store, each shared through the
// gateway's Redis when it has one, so that every replica writes one
// stream, draws on one budget and sees every approval.
func (b *Built) guards(cfg *config.Config, opts BuildOptions, caps *Capabilities) error {
	log, closeAudit, err := audit.Open(audit.OpenOptions{
		Runtime: opts.Runtime, Writer: opts.AuditWriter, File: cfg.Audit.File, Chain: cfg.Audit.Chain, Format: siem.Format(cfg.Audit.Format),
		Checkpoints:  audit.Checkpoints{Signer: caps.Keys, Every: cfg.Audit.CheckpointEvery, Interval: cfg.Audit.CheckpointInterval.D()},
		StreamMaxLen: cfg.Audit.StreamMaxLen, StreamOptions: []audit.StreamOption{audit.WithOnDrop(opts.Metrics.AuditEventDropped),
			audit.WithOnError(func(error) { opts.Metrics.RedisError("audit") })},
	})
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	b.closers, caps.Audit = append(b.closers, closeAudit), log
	caps.Limits, err = ratelimit.New(cfg.RateLimits, opts.Runtime)
	if err != nil {
		return fmt.Errorf("gateway: rate limits: %w", err)
	}
	desk, closeHook, err := approval.Open(cfg.Approvals, approval.OpenOptions{
		Runtime: opts.Runtime, Keys: caps.Keys, Audit: caps.Audit, Ledger: caps.Revocations, ConsoleURL: console.BaseURL(cfg),
		Approvers: func() policy.Approvers { return caps.Policy.Current().Approvers() }})
	if err != nil {
		return fmt.Errorf("gateway: approvals: %w", err)
	}
	b.closers, caps.Approvals = append(b.closers, closeHook), desk
	return nil
}

// keySet loads the configured key file, or generates ephemeral keys: fine
// for one replica, but tokens do not survive a restart and other replicas
// cannot verify them.
func keySet(cfg *config.Config, opts BuildOptions) (*captoken.KeySet, error) {
	if opts.Keys != nil {
		return opts.Keys, nil
	}
	if cfg.Capabilities.KeysFile != "" {
		ks, err := captoken.LoadKeySetFile(cfg.Capabilities.KeysFile)
		if err != nil {
			return nil, fmt.Errorf("gateway: capability keys: %w", err)
		}
		return ks, nil
	}
	opts.Logger.Warn("no capabilities.keys_file: using ephemeral signing keys (single replica only)")
	ks, err := captoken.GenerateKeySet(jose.EdDSA)
	if err != nil {
		return nil, fmt.Errorf("gateway: capability keys: %w", err)
	}
	return ks, nil
}
