package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"github.com/capgate/capgate/captoken"
	"github.com/capgate/capgate/gateway/a2afront"
	"github.com/capgate/capgate/gateway/authn"
	"github.com/capgate/capgate/gateway/capindex"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/gateway/taskindex"
	"github.com/capgate/capgate/policy"
	"github.com/capgate/capgate/revocation"
)

// verifiedCacheSize bounds the verified-claims cache. Cached claims still
// go through the revocation check on every use.
const verifiedCacheSize = 100_000

// BuildOptions are the process-level dependencies of FromConfig.
type BuildOptions struct {
	Logger *slog.Logger
	Now    func() time.Time
	// HTTPClient is used for OIDC discovery and JWKS fetches.
	HTTPClient *http.Client
	Getenv     func(string) string
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
}

// Built is a gateway with the resources FromConfig opened for it.
type Built struct {
	*Gateway
	Policy  *policy.Watcher
	closers []func() error
	// readyChecks are handed to the gateway's /readyz.
	readyChecks []func(context.Context) error
	metrics     *metrics.Metrics
	redis       redis.UniversalClient
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

// FromConfig builds a gateway, its authenticator and its capability
// dependencies from a loaded config: the key set (the config's key file,
// or ephemeral keys for a single replica), the policy watcher on the
// policy file, and the embedded in-memory index and revocation store
// unless others are given.
func FromConfig(ctx context.Context, cfg *config.Config, opts BuildOptions) (*Built, error) {
	opts = opts.withDefaults()
	b := &Built{}
	a, err := authn.New(ctx, cfg.OIDC, cfg.DevKeys, authn.Options{
		HTTPClient: opts.HTTPClient, Now: opts.Now, Logger: opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: authentication: %w", err)
	}
	if b.metrics, err = newMetrics(opts.Registry, cfg, b.cacheStats); err != nil {
		return nil, err
	}
	caps, err := b.capabilities(ctx, cfg, opts)
	if err != nil {
		b.Close()
		return nil, err
	}
	front, err := b.a2eFront(cfg, opts, a, caps)
	if err != nil {
		b.Close()
		return nil, err
	}
	tp := opts.TracerProvider
	if tp == nil {
		if tp, err = b.newTracerProvider(ctx, cfg); err != nil {
			b.Close()
			return nil, err
		}
	}
	gw, err := New(ctx, Options{
		Config: cfg, Authenticator: a, Capabilities: caps, Logger: opts.Logger, Now: opts.Now,
		Getenv: opts.Getenv, ReadFile: os.ReadFile, Ready: b.readyChecks,
		Metrics: b.metrics, MetricsHandler: b.metrics.Handler(), A2E: front,
		Tracer: tp.Tracer(a2afront.TracerName),
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

// cacheStats reports the revocation store's local set at scrape time.
func (b *Built) cacheStats() metrics.RevocationCacheStats {
	if f := cacheStats(b.revocations); f != nil {
		return f()
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
	w, err := policy.NewWatcher(ctx, cfg.Policy.File, Catalog(cfg), policy.WatcherOptions{
		Interval: cfg.Policy.ReloadInterval.D(), Logger: opts.Logger, OnReload: b.metrics.PolicyReloaded,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err) // the policy's errors start with "policy: "
	}
	b.Policy = w
	b.closers = append(b.closers, w.Close)
	b.metrics.SetPolicyRevision(w.Current().Revision())
	caps := &Capabilities{Keys: ks, Verifier: v, Policy: w, Index: opts.Index, Revocations: opts.Revocations}
	if cfg.Redis != nil && caps.Revocations == nil && caps.Index == nil {
		if caps.Revocations, caps.Index, err = b.redisStores(ctx, cfg, opts); err != nil {
			return nil, err
		}
		caps.Tasks = taskindex.NewRedis(b.redis, cfg.Redis.Prefix, cmp.Or(cfg.Limits.TaskTTL.D(), a2afront.DefaultTaskTTL), cfg.Redis.Timeout.D())
	}
	if caps.Audit, err = b.auditLogger(cfg, opts, b.redis, ks); err != nil {
		return nil, err
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
	if caps.Limits, err = b.limiter(cfg, opts); err != nil {
		return nil, err
	}
	if caps.Approvals, err = b.approvals(cfg, opts, caps.Keys, caps.Audit); err != nil {
		return nil, err
	}
	return caps, nil
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
