package metrics

import "github.com/prometheus/client_golang/prometheus"

// The reasons an agent card is not served, as package agentcard names
// them (agentcard.Unserved).
const (
	CardUnavailable = "card_unavailable"
	CardRefused     = "card_refused"
	CardUnsigned    = "card_unsigned"
)

// cardReasons are the fixed reason values of agent_card_refusals_total.
var cardReasons = []string{CardUnavailable, CardRefused, CardUnsigned}

func newCardRefusals() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "agent_card_refusals_total",
		Help: "Agent card requests answered 502 instead of a card, by agent and reason (card_unavailable: " +
			"the upstream card could not be fetched; card_refused: it breaks the gateway's JSON rules; " +
			"card_unsigned: the gateway could not sign it, and serves no card unsigned)."},
		[]string{"agent", "reason"})
}

// ObserveCardRefused counts one agent card request answered without a
// card, by agent and reason (CardUnavailable, CardRefused or
// CardUnsigned). Values outside the fixed sets count as "other".
func (m *Metrics) ObserveCardRefused(agent, reason string) {
	if m == nil {
		return
	}
	m.cardRefusals.WithLabelValues(m.agents.pick(agent), pickFixed(cardReasons, reason)).Inc()
}
