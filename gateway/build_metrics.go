package gateway

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/capgate/capgate/gateway/config"
	"github.com/capgate/capgate/gateway/jsonrpc"
	"github.com/capgate/capgate/gateway/metrics"
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
	m, err := metrics.New(reg, metrics.Options{Agents: agents, Methods: jsonrpc.CanonicalMethods(), RevocationCache: stats})
	if err != nil {
		return nil, fmt.Errorf("gateway: metrics: %w", err)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m, nil
}
