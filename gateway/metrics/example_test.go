package metrics_test

import (
	"fmt"
	"time"

	"github.com/capgate/capgate/gateway/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func ExampleNew() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Options{
		Agents:  []string{"documents", "summarizer"},
		Methods: []string{"a2a/skill/invoke", "message/send"},
	})
	if err != nil {
		panic(err)
	}
	m.ObserveRequest("documents", "a2a/skill/invoke", "ok")
	m.ObserveRequest("documents", "caller-invented-method", "ok") // counted as "other"
	m.ObserveDecision(metrics.Allowed)
	m.ObserveStep(metrics.StepTotal, 85*time.Microsecond)

	n, _ := testutil.GatherAndCount(reg, "capgate_requests_total")
	fmt.Println("request series:", n)
	// Output:
	// request series: 2
}
