// Package metrics holds capgate's Prometheus metrics for operators.
//
// New registers every collector on a registry the caller passes in (never
// the default registry), and Metrics offers small typed methods the
// gateway calls on its request path: ObserveRequest, ObserveDecision,
// ObserveStep, ObserveUpstream, RedisError, PolicyReloaded,
// SetA2ESessions, AuditEventDropped, CapindexUnreadable, ObserveRefused,
// SetFrozen, ObserveFreezeAction. Handler serves the registry.
//
// # Metrics
//
// All names start with capgate_:
//
//	requests_total{agent,method,outcome}          counter
//	decisions_total{reason}                       counter ("allowed" or the reason word)
//	decision_duration_seconds{step}               histogram, 5µs..2.5s
//	upstream_duration_seconds{agent}              histogram, 0.5ms..60s
//	revocation_cache_size                         gauge, read from a stats function at scrape time
//	revocation_cache_age_seconds                  gauge, same; +Inf when never synced
//	revocation_unconfirmed_total                  counter, same: revocations that waited the whole bound for an acknowledgement
//	revocation_missing_acks_total                 counter, same: the acknowledgements they lacked
//	revocation_dropped_acks_total                 counter, same: acknowledgements this replica could not send
//	redis_errors_total{component}                 counter
//	policy_revision_info{revision}                gauge, 1 for the current revision only
//	policy_reloads_total                          counter, every reload attempt (a SIGHUP on an unchanged file too)
//	policy_reload_failures_total                  counter, attempts that failed
//	a2e_sessions_open                             gauge
//	audit_events_dropped_total                    counter
//	capindex_unreadable_records_total             counter, index records a listing could not read (each listing counts those it met)
//	refused_calls_total{surface,status}           counter, admin API and console calls refused with 401 or 403, each one, audited or summarized
//	frozen{kind}                                  gauge, agents and principals frozen (emergency stop), as this replica's copy holds them
//	freeze_actions_total{kind,action}             counter, freezes and unfreezes made on this replica
//
// # Guarantees
//
// Label cardinality is bounded by construction: agent, method, outcome,
// reason, step and component values outside the sets given to New (or
// the defaults) are counted under "other", because method names and
// similar values come from callers. The policy revision label holds one
// value at a time, clipped to 64 bytes. Every method is safe for
// concurrent use and does nothing on a nil *Metrics, so a gateway built
// without metrics needs no conditionals. The package holds no
// package-level state.
package metrics
