package metrics

import "github.com/prometheus/client_golang/prometheus"

// The kinds of the emergency stop (package freeze) and its actions.
const (
	FrozenAgent     = "agent"
	FrozenPrincipal = "principal"
	ActionFreeze    = "freeze"
	ActionUnfreeze  = "unfreeze"
)

// frozenKinds and freezeActions are the fixed label values of frozen and
// freeze_actions_total.
var (
	frozenKinds   = []string{FrozenAgent, FrozenPrincipal}
	freezeActions = []string{ActionFreeze, ActionUnfreeze}
)

func newFrozen() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "frozen",
		Help: "Agents and principals frozen by the emergency stop, as this replica's copy of the set holds them, by kind."},
		[]string{"kind"})
}

func newFreezeActions() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "freeze_actions_total",
		Help: "Freezes and unfreezes operators made on this replica, by kind (agent, principal) and action (freeze, unfreeze)."},
		[]string{"kind", "action"})
}

func (m *Metrics) initFreezeLabels() {
	for _, k := range frozenKinds {
		m.frozen.WithLabelValues(k)
		for _, a := range freezeActions {
			m.freezeActions.WithLabelValues(k, a)
		}
	}
}

// SetFrozen sets the number of frozen agents and principals.
func (m *Metrics) SetFrozen(agents, principals int) {
	if m == nil {
		return
	}
	m.frozen.WithLabelValues(FrozenAgent).Set(float64(agents))
	m.frozen.WithLabelValues(FrozenPrincipal).Set(float64(principals))
}

// ObserveFreezeAction counts one freeze or unfreeze (ActionFreeze or
// ActionUnfreeze) of kind (FrozenAgent or FrozenPrincipal). Values
// outside the fixed sets count as "other".
func (m *Metrics) ObserveFreezeAction(kind, action string) {
	if m == nil {
		return
	}
	m.freezeActions.WithLabelValues(pickFixed(frozenKinds, kind), pickFixed(freezeActions, action)).Inc()
}
