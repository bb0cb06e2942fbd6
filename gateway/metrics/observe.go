package metrics

import (
	"time"
)

// ObserveRequest counts one request. agent, method and outcome outside
// the sets given to New count as "other".
func (m *Metrics) ObserveRequest(agent, method, outcome string) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(m.agents.pick(agent), m.methods.pick(method), m.outcomes.pick(outcome)).Inc()
}

// ObserveDecision counts one capability decision: reason is Allowed or
// the stable reason word of the denial.
func (m *Metrics) ObserveDecision(reason string) {
	if m == nil {
		return
	}
	m.decisions.WithLabelValues(m.reasons.pick(reason)).Inc()
}

// ObserveStep records how long one decision-path step took (StepAuthenticate,
// StepDecide, StepVerify, StepRevocation or StepTotal).
func (m *Metrics) ObserveStep(step string, d time.Duration) {
	if m == nil {
		return
	}
	m.stepDur.WithLabelValues(m.steps.pick(step)).Observe(d.Seconds())
}

// ObserveUpstream records how long the upstream hop to agent took.
func (m *Metrics) ObserveUpstream(agent string, d time.Duration) {
	if m == nil {
		return
	}
	m.upstreamDur.WithLabelValues(m.agents.pick(agent)).Observe(d.Seconds())
}

// RedisError counts one failed Redis call by component ("revocation",
// "capindex", "audit", ...).
func (m *Metrics) RedisError(component string) {
	if m == nil {
		return
	}
	m.redisErrors.WithLabelValues(m.components.pick(component)).Inc()
}

// PolicyReloaded records one reload attempt. On success rev becomes the
// revision reported by policy_revision_info; on failure the failure is
// counted and the revision in force is kept.
func (m *Metrics) PolicyReloaded(rev string, err error) {
	if m == nil {
		return
	}
	m.reloads.Inc()
	if err != nil {
		m.reloadFailures.Inc()
		return
	}
	m.revision.set(rev)
}

// ShadowDisagreement counts a request the shadow policy decided otherwise.
func (m *Metrics) ShadowDisagreement() {
	if m == nil {
		return
	}
	m.shadow.Inc()
}

// SetPolicyRevision sets the revision in force without counting a reload,
// for the policy loaded at start.
func (m *Metrics) SetPolicyRevision(rev string) {
	if m == nil {
		return
	}
	m.revision.set(rev)
}

// SetA2ESessions sets the number of open A2E sessions.
func (m *Metrics) SetA2ESessions(n int) {
	if m == nil {
		return
	}
	m.a2eSessions.Set(float64(n))
}

// AddA2ESessions adds delta (negative when sessions close) to the number
// of open A2E sessions.
func (m *Metrics) AddA2ESessions(delta int) {
	if m == nil {
		return
	}
	m.a2eSessions.Add(float64(delta))
}

// AuditEventDropped counts one audit event that did not reach the audit
// stream; pass it to audit.WithOnDrop.
func (m *Metrics) AuditEventDropped() {
	if m == nil {
		return
	}
	m.auditDropped.Inc()
}

// CapindexUnreadable counts n capability index records that one listing
// could not read (capindex.UnreadableError): each listing counts those it
// met, so a record stays visible in the rate until it is repaired or
// expires.
func (m *Metrics) CapindexUnreadable(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.unreadable.Add(float64(n))
}
