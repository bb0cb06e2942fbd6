package enforce

// Store names a store the gateway reads or writes on a call's path. When
// one cannot answer, the call is refused with revocation_unavailable (the
// stable reason clients match on, whatever the store) and the store's
// name as data.detail, so that a person reading the refusal, and a client
// that cares, learn which store failed.
type Store string

// The stores a call may find unavailable.
const (
	// RevocationStore says whether a capability or an ancestor is revoked.
	RevocationStore Store = "revocation_store"
	// RateLimitStore keeps each principal's budgets and live counts.
	RateLimitStore Store = "rate_limit_store"
	// CapabilityIndex finds an issued capability by id.
	CapabilityIndex Store = "capability_index"
	// TaskIndex records which principal owns each task.
	TaskIndex Store = "task_index"
	// ApprovalStore keeps the requests waiting for a human's decision.
	ApprovalStore Store = "approval_store"
	// PushRelayStore keeps the push configs the gateway relays.
	PushRelayStore Store = "push_relay_store"
	// FreezeList holds the agents and principals operators froze.
	FreezeList Store = "freeze_list"
)

// Stores lists every Store, for the tests that check each is named.
func Stores() []Store {
	return []Store{RevocationStore, RateLimitStore, CapabilityIndex, TaskIndex, ApprovalStore, PushRelayStore, FreezeList}
}

// Noun is the store's name for a person: "revocation store".
func (s Store) Noun() string {
	switch s {
	case RevocationStore:
		return "revocation store"
	case RateLimitStore:
		return "rate-limit store"
	case CapabilityIndex:
		return "capability index"
	case TaskIndex:
		return "task index"
	case ApprovalStore:
		return "approval store"
	case PushRelayStore:
		return "push relay store"
	case FreezeList:
		return "freeze list"
	}
	return string(s)
}

// Unavailable is the refusal of a call a store could not answer for: the
// gateway fails closed. The message names the store and says the call
// may be retried; data.detail is the store's name and data.retryAfter
// one second. outcome, when not empty, is what the failure left undone
// ("the capability was NOT revoked") and replaces "try again".
func Unavailable(s Store, outcome string) *Refusal {
	if outcome == "" {
		outcome = "try again"
	}
	return refuse(RevocationUnavailable, s.Noun()+" unavailable; "+outcome,
		map[string]any{"detail": string(s), "retryAfter": 1})
}
