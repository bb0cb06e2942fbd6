package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/capgate/capgate/gateway/audit"
	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/metrics"
	"github.com/capgate/capgate/revocation"
)

// newMetrics registers capgate's metrics, with the Go and process
// collectors, on reg. Label sets are the configured agents and the known
// method names, so callers cannot grow the series.
func newMetrics(reg *prometheus.Registry, cfg *config.Config, stats func() metrics.RevocationCacheStats) (*metrics.Metrics, error) {
	var agents []string
	for _, a := range cfg.Agents {
		agents = append(agents, a.Name)
	}
	for _, h := range cfg.A2EHosts {
		agents = append(agents, h.Name)
	}
	methods := []string{
		jsonrpc.MethodSendMessage, jsonrpc.MethodSendStreamingMessage, jsonrpc.MethodGetTask, jsonrpc.MethodListTasks,
		jsonrpc.MethodCancelTask, jsonrpc.MethodSubscribeToTask, jsonrpc.MethodSetTaskPushNotificationConfig,
		jsonrpc.MethodGetTaskPushNotificationConfig, jsonrpc.MethodListTaskPushNotificationConfig,
		jsonrpc.MethodDeleteTaskPushNotificationConfig, jsonrpc.MethodGetAuthenticatedExtendedCard,
		jsonrpc.MethodCapabilitiesRequest, jsonrpc.MethodCapabilitiesAttenuate, jsonrpc.MethodCapabilitiesRevoke,
		jsonrpc.MethodSkillInvoke, jsonrpc.MethodTaskSend, jsonrpc.MethodApprovalStatus,
	}
	m, err := metrics.New(reg, metrics.Options{Agents: agents, Methods: methods, RevocationCache: stats})
	if err != nil {
		return nil, fmt.Errorf("gateway: metrics: %w", err)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m, nil
}

// statsReporter is a revocation store that keeps a local set and can
// say how large it is and when it last synced.
type statsReporter interface {
	LocalSet() revocation.LocalSet
}

// cacheStats reports the revocation store's local set, when it has one.
func cacheStats(s revocation.Store) func() metrics.RevocationCacheStats {
	st, ok := s.(statsReporter)
	if !ok {
		return nil
	}
	return func() metrics.RevocationCacheStats {
		x := st.LocalSet()
		return metrics.RevocationCacheStats{Size: x.Size, SyncedAt: x.SyncedAt}
	}
}

// auditLogger returns the audit logger: hash-chained JSON lines to w and,
// with Redis, to a bounded stream.
func (b *Built) auditLogger(cfg *config.Config, opts BuildOptions, client redis.UniversalClient, signer audit.Signer) (*slog.Logger, error) {
	w := opts.AuditWriter
	if w == nil && cfg.Audit.File != "" {
		f, err := os.OpenFile(cfg.Audit.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("gateway: audit file: %w", err)
		}
		b.closers = append(b.closers, f.Close)
		w = f
	}
	if w == nil {
		w = io.Discard
	}
	chain := cfg.Audit.Chain
	if chain == "" {
		chain = randomChain()
	}
	o := audit.Options{Chain: chain, Now: opts.Now, Logger: opts.Logger, Checkpoints: &audit.Checkpoints{Signer: signer,
		Every: cfg.Audit.CheckpointEvery, Interval: cfg.Audit.CheckpointInterval.D()}}
	if client != nil {
		maxLen := cfg.Audit.StreamMaxLen
		if maxLen == 0 {
			maxLen = 100_000
		}
		s := audit.NewRedisStream(client, cfg.Redis.Prefix+"audit", maxLen, cfg.Redis.Timeout.D(),
			audit.WithLogger(opts.Logger), audit.WithOnDrop(b.metrics.AuditEventDropped),
			audit.WithOnError(func(error) { b.metrics.RedisError("audit") }))
		b.closers = append(b.closers, s.Close)
		o.Stream = s
	}
	h := audit.NewHandler(w, o)
	b.closers = append(b.closers, h.Close)
	return slog.New(h), nil
}

func randomChain() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return host + "-" + hex.EncodeToString(b[:])
}
