package metrics

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Other is the label value for anything outside a fixed set.
const Other = "other"

// The decision-path steps ObserveStep knows.
const (
	StepAuthenticate = "authenticate"
	StepDecide       = "decide"
	StepVerify       = "verify"
	StepRevocation   = "revocation"
	StepTotal        = "total"
)

// Allowed is the decisions_total reason for an allowed decision.
const Allowed = "allowed"

// Bounds on the sets given to New.
const (
	maxSetSize    = 512
	maxLabelBytes = 128
)

// defaultOutcomes are the request outcomes counted by name when
// Options.Outcomes is nil.
func defaultOutcomes() []string {
	return []string{"ok", "denied", "invalid", "unauthenticated", "error", "upstream_error"}
}

// defaultReasons are the decision reasons counted by name when
// Options.Reasons is nil: "allowed", the ten capability reason words and
// A2E's capability_missing.
func defaultReasons() []string {
	return []string{
		Allowed,
		"capability_required", "capability_invalid", "capability_expired", "capability_revoked",
		"operation_not_permitted", "resource_not_permitted", "holder_mismatch", "grant_denied",
		"attenuation_not_permitted", "revocation_unavailable", "capability_missing", "rate_limited",
	}
}

// defaultComponents are the redis_errors_total components counted by name
// when Options.Components is nil.
func defaultComponents() []string {
	return []string{"revocation", "capindex", "audit", "a2e", "policy", "ratelimit"}
}

// RevocationCacheStats is what the gateway's revocation cache reports at
// scrape time.
type RevocationCacheStats struct {
	// Size is the number of revocation ids held locally.
	Size int
	// SyncedAt is when the local set was last confirmed complete; zero
	// when it never was (the age is then reported as +Inf).
	SyncedAt time.Time
	// UnconfirmedRevokes counts revocations made here that waited the
	// whole bound because a replica did not acknowledge them, MissingAcks
	// the acknowledgements they lacked, and DroppedAcks the
	// acknowledgements this replica could not send (queue full).
	UnconfirmedRevokes, MissingAcks, DroppedAcks uint64
}

// Options configures New. The label sets bound cardinality: a value not
// in its set is counted as "other".
type Options struct {
	// Agents are the fronted agents and A2E hosts, by name.
	Agents []string
	// Methods are the JSON-RPC methods and A2E message types counted by
	// name.
	Methods []string
	// Outcomes are the request outcomes; nil means the gateway's outcomes.
	Outcomes []string
	// Reasons are the decision reasons; nil means the capability reason words.
	Reasons []string
	// Components are the Redis error components; nil means
	// the gateway's Redis users.
	Components []string
	// RevocationCache, when set, is called at every scrape for the
	// revocation_cache_* gauges. It must be cheap and must not block;
	// without it those gauges are not registered.
	RevocationCache func() RevocationCacheStats
	// Now is the clock for the cache age; nil means time.Now.
	Now func() time.Time
}

// Validate reports every problem with the label sets.
func (o Options) Validate() error {
	var errs []error
	check := func(field string, set []string) {
		if len(set) > maxSetSize {
			errs = append(errs, fmt.Errorf("%s: %d values, at most %d", field, len(set), maxSetSize))
		}
		for _, v := range set {
			if v == "" || len(v) > maxLabelBytes || !utf8.ValidString(v) {
				errs = append(errs, fmt.Errorf("%s: %q is not a label value (1 to %d bytes of UTF-8)", field, v, maxLabelBytes))
			}
		}
	}
	check("agents", o.Agents)
	check("methods", o.Methods)
	check("outcomes", o.Outcomes)
	check("reasons", o.Reasons)
	check("components", o.Components)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return nil
}

// labelSet maps the values of a fixed set to themselves.
type labelSet map[string]struct{}

func newLabelSet(values, defaults []string) labelSet {
	if values == nil {
		values = defaults
	}
	s := labelSet{Other: {}}
	for _, v := range values {
		s[v] = struct{}{}
	}
	return s
}

// pick returns v when it is in the set, "other" otherwise.
func (s labelSet) pick(v string) string {
	if _, ok := s[v]; ok {
		return v
	}
	return Other
}
