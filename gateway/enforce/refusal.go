package enforce

import "maps"

// Reason is the stable word that says why a capability decision refused.
// Clients match on it, so a reason never changes meaning. Each front
// carries it in its own wire form: the JSON-RPC fronts as data.reason
// beside the code the word stands for (jsonrpc.CodeOf).
type Reason string

// The reasons a decision can refuse with.
const (
	CapabilityRequired    Reason = "capability_required"
	CapabilityInvalid     Reason = "capability_invalid"
	CapabilityExpired     Reason = "capability_expired"
	CapabilityRevoked     Reason = "capability_revoked"
	OperationNotPermitted Reason = "operation_not_permitted"
	ResourceNotPermitted  Reason = "resource_not_permitted"
	HolderMismatch        Reason = "holder_mismatch"
	RevocationUnavailable Reason = "revocation_unavailable"
	InvalidParams         Reason = "invalid_params"
)

// Reasons lists every Reason, for fronts that must map each to a wire
// code and for the tests that check they do.
func Reasons() []Reason {
	return []Reason{
		CapabilityRequired, CapabilityInvalid, CapabilityExpired, CapabilityRevoked,
		OperationNotPermitted, ResourceNotPermitted, HolderMismatch, RevocationUnavailable,
		InvalidParams,
	}
}

// Refusal is a decision's no: the stable reason, a message for a person,
// and members a client may read (operation, allowed, detail).
type Refusal struct {
	Reason  Reason
	Message string
	// Data holds extra members of the refusal; nil when there are none.
	Data map[string]any
}

// refuse builds a refusal.
func refuse(r Reason, msg string, data map[string]any) *Refusal {
	return &Refusal{Reason: r, Message: msg, Data: data}
}

// Error returns "enforce: <reason>: <message>".
func (r *Refusal) Error() string { return "enforce: " + string(r.Reason) + ": " + r.Message }

// Is reports whether target is a Refusal with the same reason, so that
// errors.Is(err, &Refusal{Reason: CapabilityRevoked}) matches any
// revocation refusal whatever its message.
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Reason == r.Reason
}

// Members returns the refusal's data with its reason under "reason", a
// fresh map the caller may keep.
func (r *Refusal) Members() map[string]any {
	m := make(map[string]any, len(r.Data)+1)
	maps.Copy(m, r.Data)
	m["reason"] = string(r.Reason)
	return m
}
