package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	qsfiles "github.com/capgate/capgate/deploy/examples/quickstart"
	"github.com/capgate/capgate/gateway/config"
)

// Lab is every target of a comparison, running on loopback: the upstream,
// the baseline in front of it, and one capgate per variant that could be
// started.
type Lab struct {
	Upstream *Server
	Baseline *Server
	// Capgates are in the order of the options' variants, without those
	// that were skipped.
	Capgates []*Capgate
	// Catalog is the capgate whose documents agent has its resources in
	// the config's catalog (in-memory store), for TargetIssuanceCatalog;
	// nil when no step drives it.
	Catalog *Capgate
	// ReplicaA and ReplicaB are two replicas of one gateway on one Redis,
	// for the propagation figure; nil when it is not measured.
	ReplicaA, ReplicaB *Capgate
	// Notes say what was skipped and why.
	Notes []string

	upstream *Upstream
	setup    *http.Transport
	redis    *RedisServer
	stores   []*redisStores
	tmpDir   string
	closers  []func() error
}

// listenerConfig is the quickstart listener's timeouts, used for every
// target's server.
func listenerConfig() config.Listener {
	d := func(t time.Duration) config.Duration { return config.Duration(t) }
	return config.Listener{
		ReadHeaderTimeout: d(5 * time.Second), ReadTimeout: d(30 * time.Second),
		WriteTimeout: d(60 * time.Second), IdleTimeout: d(120 * time.Second),
	}
}

// StartLab starts every target for o (after WithDefaults). Close stops
// them, and any redis-server it started.
func StartLab(ctx context.Context, o Options) (*Lab, error) {
	l := &Lab{setup: &http.Transport{Proxy: nil}}
	if err := l.start(ctx, o); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func (l *Lab) start(ctx context.Context, o Options) error {
	var err error
	l.upstream = NewUpstreamIn(o.World)
	if l.Upstream, err = Serve(l.upstream, listenerConfig()); err != nil {
		return err
	}
	l.closers = append(l.closers, l.Upstream.Close)
	up, _ := url.Parse(l.Upstream.URL + "/")
	if l.Baseline, err = Serve(NewBaseline(up), listenerConfig()); err != nil {
		return err
	}
	l.closers = append(l.closers, l.Baseline.Close)
	policy, err := l.writePolicy()
	if err != nil {
		return err
	}
	variants, err := l.redisFor(ctx, o)
	if err != nil {
		return err
	}
	for _, v := range variants {
		if err := l.startCapgate(ctx, o, v, policy); err != nil {
			return err
		}
	}
	if len(variants) > 0 && (o.runs(TargetIssuanceCatalog) || o.runs(TargetHeap)) {
		if l.Catalog, err = startCapgate(ctx, capgateOptions{variant: VariantMemory, upstreamURL: l.Upstream.URL,
			policyFile: policy, now: o.Now, client: &http.Client{Transport: l.setup}, catalog: o.World.catalogOr2()}); err != nil {
			return err
		}
	}
	if o.runs(TargetPropagation) {
		if l.redis == nil && !isRedisURL(o.Redis) {
			l.Notes = append(l.Notes, "propagation SKIPPED: it needs Redis (redis-server on PATH, or --redis URL)")
		} else if err := l.startReplicas(ctx, o, policy); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(variants, Variant.needsRedis) && (o.runs(TargetCapgate) || o.runs(TargetAttenuation)) {
		l.Notes = append(l.Notes, "redis and synced change only the revocation store: the capability index stays in memory")
	}
	if len(l.Capgates) == 0 {
		return fmt.Errorf("%w: no capgate variant could start", ErrSetup)
	}
	return nil
}

// writePolicy writes the embedded quickstart policy to a temporary folder:
// the gateway's policy watcher reads a file.
func (l *Lab) writePolicy() (string, error) {
	data, err := qsfiles.Files.ReadFile("policy.yaml")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSetup, err)
	}
	if l.tmpDir, err = os.MkdirTemp("", "capgate-loadtest-"); err != nil {
		return "", fmt.Errorf("%w: %w", ErrSetup, err)
	}
	path := filepath.Join(l.tmpDir, "policy.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("%w: %w", ErrSetup, err)
	}
	return path, nil
}

// redisFor resolves o.Redis and returns the variants that can run: the
// Redis variants are dropped, with a note, when Redis is off or when
// RedisAuto finds no redis-server.
func (l *Lab) redisFor(ctx context.Context, o Options) ([]Variant, error) {
	if !slices.ContainsFunc(o.Variants, Variant.needsRedis) && !o.runs(TargetPropagation) {
		return o.Variants, nil
	}
	skip := func(why string) []Variant {
		l.Notes = append(l.Notes, "redis and synced variants SKIPPED: "+why)
		return slices.DeleteFunc(slices.Clone(o.Variants), Variant.needsRedis)
	}
	switch o.Redis {
	case RedisOff:
		return skip("--redis off"), nil
	case RedisAuto:
		path, err := exec.LookPath("redis-server")
		if err != nil {
			return skip("no redis-server on PATH (install redis-server, or pass --redis redis://HOST:PORT)"), nil
		}
		if l.redis, err = StartRedis(ctx, path); err != nil {
			return skip(err.Error()), nil
		}
		l.Notes = append(l.Notes, "redis: throwaway redis-server at "+l.redis.URL+" (persistence off), stopped at the end")
	default:
		l.Notes = append(l.Notes, "redis: "+redactURL(o.Redis)+", keys under a random prefix")
	}
	return o.Variants, nil
}

// redisURL is the Redis the variants use.
func (l *Lab) redisURL(o Options) string {
	if l.redis != nil {
		return l.redis.URL
	}
	return o.Redis
}

func (l *Lab) startCapgate(ctx context.Context, o Options, v Variant, policy string) error {
	co := capgateOptions{variant: v, upstreamURL: l.Upstream.URL, policyFile: policy, now: o.Now,
		client: &http.Client{Transport: l.setup}, catalog: o.World.catalog()}
	if v.needsRedis() {
		rs, err := openRedisStore(ctx, v, l.redisURL(o), randomPrefix(), o.Now)
		if err != nil {
			return err
		}
		l.stores = append(l.stores, rs)
		co.revocations = rs.store
	}
	c, err := startCapgate(ctx, co)
	if err != nil {
		return err
	}
	l.Capgates = append(l.Capgates, c)
	return nil
}

// UpstreamCalls returns how many JSON-RPC calls reached the upstream.
func (l *Lab) UpstreamCalls() uint64 { return l.upstream.Calls() }

// Variants are the variants that started.
func (l *Lab) Variants() []Variant {
	out := make([]Variant, 0, len(l.Capgates))
	for _, c := range l.Capgates {
		out = append(out, c.Variant)
	}
	return out
}

func (l *Lab) capgate(v Variant) *Capgate {
	for _, c := range l.Capgates {
		if c.Variant == v {
			return c
		}
	}
	return nil
}

// Spec returns the load spec of one step. The upstream and the baseline
// get the very invoke request capgate gets (same body and headers; they
// do not check it).
func (l *Lab) Spec(s Step, o Options) (Spec, error) {
	warmup, measured := o.slice()
	spec := Spec{Header: RequestHeader(), Conns: s.Conns, Warmup: warmup, Duration: measured,
		SamplesPerSecond: o.SamplesPerSecond, Now: o.Now}
	if s.Target == TargetIssuanceCatalog {
		if l.Catalog == nil {
			return Spec{}, fmt.Errorf("%w: the catalog capgate is not running", ErrInvalidOptions)
		}
		spec.URL, spec.Body = l.Catalog.Server.URL+agentPath, []byte(IssuanceBody)
		return spec, nil
	}
	c := l.capgate(s.Variant)
	if s.Variant == "" {
		c = l.Capgates[0]
	}
	if c == nil {
		return Spec{}, fmt.Errorf("%w: variant %q is not running", ErrInvalidOptions, s.Variant)
	}
	spec.Body = InvokeBody(c.Cap)
	switch s.Target {
	case TargetUpstream:
		spec.URL = l.Upstream.URL + "/"
	case TargetBaseline:
		spec.URL = l.Baseline.URL + agentPath
	case TargetCapgate:
		spec.URL = c.Server.URL + agentPath
	case TargetMCP:
		spec.URL, spec.Body, spec.Header = c.Server.URL+mcpPath, ToolCallBody(c.MCP), mcpHeader()
	case TargetIssuance:
		spec.URL, spec.Body = c.Server.URL+agentPath, []byte(IssuanceBody)
	case TargetAttenuation:
		spec.URL, spec.Body = c.Server.URL+agentPath, AttenuateBody(c.Cap)
	default:
		return Spec{}, fmt.Errorf("%w: unknown target %q", ErrInvalidOptions, s.Target)
	}
	return spec, nil
}

// Close stops every target, closes the stores and kills a started
// redis-server.
func (l *Lab) Close() error {
	var errs []error
	for _, c := range l.Capgates {
		errs = append(errs, c.Close())
	}
	for _, c := range []*Capgate{l.Catalog, l.ReplicaA, l.ReplicaB} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	for _, s := range l.stores {
		errs = append(errs, s.Close())
	}
	for i := len(l.closers) - 1; i >= 0; i-- {
		errs = append(errs, l.closers[i]())
	}
	if l.redis != nil {
		errs = append(errs, l.redis.Close())
	}
	if l.tmpDir != "" {
		errs = append(errs, os.RemoveAll(l.tmpDir))
	}
	l.setup.CloseIdleConnections()
	return errors.Join(errs...)
}

// isRedisURL reports whether the --redis setting names a server.
func isRedisURL(s string) bool { return s != RedisAuto && s != RedisOff && s != "" }

// redactURL hides a password in a Redis URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
