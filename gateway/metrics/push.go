package metrics

import "github.com/prometheus/client_golang/prometheus"

// The outcomes of a push an agent posted to the gateway's relay, as
// push_relay_pushes_total counts them.
const (
	PushAccepted        = "accepted"
	PushDelivered       = "delivered"
	PushFailed          = "failed"
	PushQueueFull       = "queue_full"
	PushClosed          = "closed"
	PushRevoked         = "dropped_revoked"
	PushRefused         = "refused"
	PushUnauthenticated = "unauthenticated"
	PushUnknownConfig   = "unknown_config"
	PushUnavailable     = "unavailable"
)

var pushOutcomes = []string{PushAccepted, PushDelivered, PushFailed, PushQueueFull, PushClosed, PushRevoked,
	PushRefused, PushUnauthenticated, PushUnknownConfig, PushUnavailable}

func newPushes() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "push_relay_pushes_total",
		Help: "Pushes agents posted to the relay, by agent and outcome (accepted for delivery, then delivered, " +
			"failed after every attempt, queue_full or closed; or refused before: dropped_revoked once the " +
			"capability is revoked or expired, refused by the answer pipeline or as the wrong task, " +
			"unauthenticated, unknown_config, unavailable when a store could not answer)."},
		[]string{"agent", "outcome"})
}

// ObservePush counts one push by agent and outcome (the Push* values;
// others count as "other").
func (m *Metrics) ObservePush(agent, outcome string) {
	if m == nil {
		return
	}
	m.pushes.WithLabelValues(m.agents.pick(agent), pickFixed(pushOutcomes, outcome)).Inc()
}
